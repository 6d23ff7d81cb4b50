import Foundation

/// The relying party's side of WebAuthn: checking a registration (attestation `none`: any statement is accepted as
/// none, no vendor trust is claimed) and an assertion against a stored passkey. Pure: no store, no clock; the caller
/// brings the challenge it issued and the stored credential.
public struct RelyingParty: Sendable {
    public let id: String
    public let name: String
    public let origins: [String]

    public init(id: String, name: String, origins: [String]) { self.id = id; self.name = name; self.origins = origins }

    /// A credential a registration proved: what the store keeps.
    public struct Registered: Sendable, Equatable {
        public var credentialId: [UInt8]
        public var publicKey: COSEKey
        public var signCount: UInt32
        public var aaguid: [UInt8]
        public var backupEligible: Bool
        public var backedUp: Bool
    }

    /// An assertion that verified: the new counter and backup state to store.
    public struct Asserted: Sendable, Equatable {
        public var signCount: UInt32
        public var backedUp: Bool
        public var userVerified: Bool
    }

    /// Checks `navigator.credentials.create()`'s answer for `challenge`.
    public func verifyRegistration(clientDataJSON: [UInt8], attestationObject: [UInt8], challenge: [UInt8]) throws -> Registered {
        try ClientData.read(clientDataJSON).check(type: "webauthn.create", challenge: challenge, origins: origins)
        let attestation = try CBORReader.decode(attestationObject)
        guard attestation["fmt"]?.textString != nil, case .map? = attestation["attStmt"], let authBytes = attestation["authData"]?.byteString else {
            throw WebAuthnRefusal.malformed("attestation object without fmt, attStmt and authData")
        }
        let data = try AuthenticatorData(authBytes)
        try checkCommon(data)
        guard let credential = data.attestedCredential else { throw WebAuthnRefusal.malformed("no attested credential data") }
        return Registered(credentialId: credential.credentialId, publicKey: credential.publicKey, signCount: data.signCount,
                          aaguid: credential.aaguid, backupEligible: data.flags.contains(.backupEligible),
                          backedUp: data.flags.contains(.backedUp))
    }

    /// Checks `navigator.credentials.get()`'s answer for `challenge` against the stored key and counter.
    public func verifyAssertion(clientDataJSON: [UInt8], authenticatorData: [UInt8], signature: [UInt8], challenge: [UInt8],
                                publicKey: COSEKey, storedSignCount: UInt32) throws -> Asserted {
        try ClientData.read(clientDataJSON).check(type: "webauthn.get", challenge: challenge, origins: origins)
        let data = try AuthenticatorData(authenticatorData)
        try checkCommon(data)
        guard publicKey.verifies(signature, over: authenticatorData + Digest.sha256(clientDataJSON)) else {
            throw WebAuthnRefusal.badSignature
        }
        // A counter that does not go up means a cloned authenticator; synced passkeys that always send 0 are not checked.
        if data.signCount != 0 || storedSignCount != 0, data.signCount <= storedSignCount {
            throw WebAuthnRefusal.counterWentBack(stored: storedSignCount, presented: data.signCount)
        }
        return Asserted(signCount: data.signCount, backedUp: data.flags.contains(.backedUp), userVerified: true)
    }

    private func checkCommon(_ data: AuthenticatorData) throws {
        guard Digest.constantTimeEqual(data.rpIdHash, Digest.sha256(Array(id.utf8))) else { throw WebAuthnRefusal.rpIdMismatch }
        guard data.flags.contains(.userPresent) else { throw WebAuthnRefusal.userNotPresent }
        guard data.flags.contains(.userVerified) else { throw WebAuthnRefusal.userNotVerified }
    }
}
