import COpenSSL

/// AES-256-GCM sealing for data that must be stored but not readable in the file (queued mail bodies).
/// Output layout: 12-byte nonce || ciphertext || 16-byte tag.
public struct SecretBox: Sendable {
    let key: [UInt8]

    public init(key: [UInt8]) {
        precondition(key.count == 32, "AES-256 needs a 32-byte key")
        self.key = key
    }

    public func seal(_ plaintext: [UInt8]) -> [UInt8] {
        let nonce = SecureRandom.bytes(12)
        let ctx = EVP_CIPHER_CTX_new()!
        defer { EVP_CIPHER_CTX_free(ctx) }
        var out = [UInt8](repeating: 0, count: plaintext.count + 16)
        var len: Int32 = 0, total: Int32 = 0
        var tag = [UInt8](repeating: 0, count: 16)
        var ok = EVP_EncryptInit_ex(ctx, EVP_aes_256_gcm(), nil, key, nonce) == 1
        ok = ok && EVP_EncryptUpdate(ctx, &out, &len, plaintext, Int32(plaintext.count)) == 1
        total = len
        ok = ok && out.withUnsafeMutableBufferPointer { EVP_EncryptFinal_ex(ctx, $0.baseAddress! + Int(total), &len) } == 1
        total += len
        ok = ok && EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_GET_TAG, 16, &tag) == 1
        precondition(ok, "AES-GCM seal failed")
        return nonce + out[0..<Int(total)] + tag
    }

    /// Nil when the box was tampered with or sealed under another key.
    public func open(_ box: [UInt8]) -> [UInt8]? {
        guard box.count >= 28 else { return nil }
        let nonce = Array(box[0..<12]), tag = Array(box[(box.count - 16)...]), body = Array(box[12..<(box.count - 16)])
        let ctx = EVP_CIPHER_CTX_new()!
        defer { EVP_CIPHER_CTX_free(ctx) }
        var out = [UInt8](repeating: 0, count: body.count + 16)
        var len: Int32 = 0, total: Int32 = 0
        var tagCopy = tag
        guard EVP_DecryptInit_ex(ctx, EVP_aes_256_gcm(), nil, key, nonce) == 1,
              EVP_DecryptUpdate(ctx, &out, &len, body, Int32(body.count)) == 1 else { return nil }
        total = len
        guard EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_TAG, 16, &tagCopy) == 1 else { return nil }
        let final = out.withUnsafeMutableBufferPointer { EVP_DecryptFinal_ex(ctx, $0.baseAddress! + Int(total), &len) }
        guard final == 1 else { return nil }
        total += len
        return Array(out[0..<Int(total)])
    }
}
