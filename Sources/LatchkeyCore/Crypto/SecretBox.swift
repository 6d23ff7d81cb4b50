import Crypto

/// AES-256-GCM sealing for data that must be stored or handed out but not read (queued mail bodies, sealed visits and
/// console sessions), through swift-crypto. Layout: 12-byte nonce || ciphertext || 16-byte tag (GCM's combined form).
public struct SecretBox: Sendable {
    let key: SymmetricKey

    public init(key: [UInt8]) {
        precondition(key.count == 32, "AES-256 needs a 32-byte key")
        self.key = SymmetricKey(data: key)
    }

    /// Under a fresh random nonce.
    public func seal(_ plaintext: [UInt8]) -> [UInt8] {
        // With a 32-byte key and the default 12-byte nonce, sealing cannot fail, and the combined form exists.
        guard let combined = (try? AES.GCM.seal(plaintext, using: key))?.combined else { preconditionFailure("AES-GCM seal failed") }
        return Array(combined)
    }

    /// Nil when the box was tampered with or sealed under another key.
    public func open(_ box: [UInt8]) -> [UInt8]? {
        guard box.count >= 28, let sealed = try? AES.GCM.SealedBox(combined: box), let plain = try? AES.GCM.open(sealed, using: key) else {
            return nil
        }
        return Array(plain)
    }
}
