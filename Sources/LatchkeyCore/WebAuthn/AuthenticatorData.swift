import Foundation

/// Authenticator data (WebAuthn §6.1): the RP id's hash, the flags, the signature counter and, at registration,
/// the attested credential (AAGUID, credential id, COSE public key).
public struct AuthenticatorData: Sendable, Equatable {
    public struct Flags: OptionSet, Sendable, Equatable {
        public let rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }
        public static let userPresent = Flags(rawValue: 0x01)
        public static let userVerified = Flags(rawValue: 0x04)
        public static let backupEligible = Flags(rawValue: 0x08)
        public static let backedUp = Flags(rawValue: 0x10)
        public static let attestedCredential = Flags(rawValue: 0x40)
        public static let extensions = Flags(rawValue: 0x80)
    }

    public struct AttestedCredential: Sendable, Equatable {
        public var aaguid: [UInt8]
        public var credentialId: [UInt8]
        public var publicKey: COSEKey
    }

    public let rpIdHash: [UInt8]
    public let flags: Flags
    public let signCount: UInt32
    public let attestedCredential: AttestedCredential?
    /// The bytes as signed.
    public let raw: [UInt8]

    /// Credential ids longer than this are refused (WebAuthn caps them at 1023 bytes).
    public static let maxCredentialIdBytes = 1023

    public init(_ bytes: [UInt8]) throws {
        guard bytes.count >= 37, bytes.count <= 16 * 1024 else { throw WebAuthnRefusal.malformed("authenticator data of \(bytes.count) bytes") }
        raw = bytes
        rpIdHash = Array(bytes[0..<32])
        flags = Flags(rawValue: bytes[32])
        signCount = bytes[33..<37].reduce(0) { $0 << 8 | UInt32($1) }
        var offset = 37
        if flags.contains(.attestedCredential) {
            guard bytes.count >= offset + 18 else { throw WebAuthnRefusal.malformed("attested credential data cut short") }
            let aaguid = Array(bytes[offset..<offset + 16])
            let length = Int(bytes[offset + 16]) << 8 | Int(bytes[offset + 17])
            offset += 18
            guard length > 0, length <= Self.maxCredentialIdBytes, bytes.count >= offset + length else {
                throw WebAuthnRefusal.malformed("credential id of \(length) bytes")
            }
            let credentialId = Array(bytes[offset..<offset + length])
            offset += length
            let (_, used) = try CBORReader.decodePrefix(Array(bytes[offset...]))
            let key = try COSEKey(encoded: Array(bytes[offset..<offset + used]))
            offset += used
            attestedCredential = AttestedCredential(aaguid: aaguid, credentialId: credentialId, publicKey: key)
        } else {
            attestedCredential = nil
        }
        if flags.contains(.extensions) {
            let (_, used) = try CBORReader.decodePrefix(Array(bytes[offset...]))
            offset += used
        }
        guard offset == bytes.count else { throw WebAuthnRefusal.malformed("\(bytes.count - offset) bytes after the authenticator data") }
    }
}
