import Foundation

/// Key rotation: a new key signs from now on; the previous one stays published until its tokens have expired.
extension OperatorService {
    public struct SigningKeyInfo: Sendable, Equatable {
        public enum State: String, Sendable { case signing, published, retired }
        public var kid: String
        public var algorithm: String
        public var createdAt: Date
        public var state: State
    }

    /// Every stored key, newest first, with what it does now.
    public func signingKeyInfo() async throws -> [SigningKeyInfo] {
        let records = try await reader.serverValues.signingKeys()
        let published = Set(SigningKeyRing.publishedRecords(records, now: time.now(), retentionSeconds: keyRing.retentionSeconds).map(\.kid))
        return records.enumerated().map { index, record in
            SigningKeyInfo(kid: record.kid, algorithm: record.algorithm, createdAt: record.createdAt,
                           state: index == 0 ? .signing : published.contains(record.kid) ? .published : .retired)
        }
    }

    /// Makes a new key that signs from now on (on this process at once, on other replicas at their next reload).
    public func rotateSigningKey(caller: CallerInfo) async throws -> SigningKeyInfo {
        let key = try SigningKey.generate()
        let record = SigningKeyRecord(kid: key.kid, algorithm: key.algorithm, privateKeyPem: try key.privateKeyPEM(), createdAt: time.now())
        try await transaction { tx in
            try await tx.serverValues.insert(signingKey: record)
            try await self.audit(tx, "admin.signing_key_rotated", caller: caller, detail: "kid \(key.kid)")
        }
        try await engine.reloadSigningKeys()
        logger.notice("signing key rotated", metadata: ["kid": "\(key.kid)"])
        return SigningKeyInfo(kid: record.kid, algorithm: record.algorithm, createdAt: record.createdAt, state: .signing)
    }

    public enum KeyRevocationError: ClassifiedError, Sendable, Equatable {
        case unknownKey
        public var errorClass: ErrorClass { .notFound }
    }

    /// Revokes a (compromised) key: it leaves the JWKS and stops verifying on this process at once, on every other
    /// replica at its next reload (every ten seconds), however long its tokens had left. Revoking the key that signs
    /// makes a new one first, in the same transaction, so there is always a key to sign with.
    public func revokeSigningKey(kid: String, caller: CallerInfo) async throws -> SigningKeyInfo? {
        let replacement = try SigningKey.generate()
        let record = SigningKeyRecord(kid: replacement.kid, algorithm: replacement.algorithm,
                                      privateKeyPem: try replacement.privateKeyPEM(), createdAt: time.now())
        guard try await reader.serverValues.signingKeys().contains(where: { $0.kid == kid }) else { throw KeyRevocationError.unknownKey }
        let rotated = try await transaction { tx -> Bool in
            let keys = try await tx.serverValues.signingKeys()
            let signing = keys.first?.kid == kid
            if signing { try await tx.serverValues.insert(signingKey: record) }
            _ = try await tx.serverValues.deleteSigningKey(kid: kid)
            try await self.audit(tx, "admin.signing_key_revoked", caller: caller,
                                 detail: "kid \(kid)" + (signing ? ", new signing key \(record.kid)" : ""))
            return signing
        }
        try await engine.reloadSigningKeys()
        logger.warning("signing key revoked", metadata: ["kid": "\(kid)"])
        return rotated ? SigningKeyInfo(kid: record.kid, algorithm: record.algorithm, createdAt: record.createdAt, state: .signing) : nil
    }
}
