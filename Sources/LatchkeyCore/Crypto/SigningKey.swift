import COpenSSL
import Foundation

public enum CryptoError: Error, Sendable { case openSSL(String) }

/// An ES256 (ECDSA P-256 / SHA-256) JWT signing key held by OpenSSL.
public final class SigningKey: @unchecked Sendable {
    // EVP_PKEY is safe for concurrent signing once created (OpenSSL 3 threading rules); never mutated after init.
    let pkey: OpaquePointer
    public let kid: String
    public let algorithm = "ES256"
    /// The public JWK (RFC 7517) as published at the JWKS endpoint; computed once.
    public let publicJWK: [String: String]
    /// The JWT protected header naming this key, encoded once: every ID token this key signs starts with it.
    public let jwtHeaderSegment: String
    /// The same with `typ: at+jwt` (RFC 9068): access tokens are typed apart, so none passes for an ID token.
    public let accessTokenHeaderSegment: String

    /// Digest contexts set up once for this key and copied per call: `EVP_DigestSignInit` fetches the digest and
    /// the signature algorithm from the provider each time, 2 µs of a 16 µs signature (OpenSSL 3.0).
    /// Only ever read after init, which copying does.
    private let signTemplate: OpaquePointer
    private let verifyTemplate: OpaquePointer

    deinit {
        EVP_MD_CTX_free(signTemplate)
        EVP_MD_CTX_free(verifyTemplate)
        EVP_PKEY_free(pkey)
    }

    private init(pkey: OpaquePointer) throws {
        self.pkey = pkey
        let sign = try Self.digestContext { EVP_DigestSignInit($0, nil, EVP_sha256(), nil, pkey) }
        guard let verify = try? Self.digestContext({ EVP_DigestVerifyInit($0, nil, EVP_sha256(), nil, pkey) }) else {
            EVP_MD_CTX_free(sign)
            throw CryptoError.openSSL("EVP_DigestVerifyInit")
        }
        signTemplate = sign
        verifyTemplate = verify
        let jwk = try Self.publicCoordinates(pkey)
        // RFC 7638 thumbprint: stable kid derived from the public key itself.
        let canonical = "{\"crv\":\"P-256\",\"kty\":\"EC\",\"x\":\"\(jwk.x)\",\"y\":\"\(jwk.y)\"}"
        let kid = Base64URL.encode(Digest.sha256(Array(canonical.utf8)))
        self.kid = kid
        self.publicJWK = ["kty": "EC", "crv": "P-256", "x": jwk.x, "y": jwk.y, "kid": kid, "use": "sig", "alg": "ES256"]
        self.jwtHeaderSegment = JWT.headerSegment(algorithm: "ES256", kid: kid)
        self.accessTokenHeaderSegment = JWT.headerSegment(algorithm: "ES256", kid: kid, type: "at+jwt")
    }

    public static func generate() throws -> SigningKey {
        guard let ctx = EVP_PKEY_CTX_new_from_name(nil, "EC", nil) else { throw CryptoError.openSSL("EVP_PKEY_CTX_new_from_name") }
        defer { EVP_PKEY_CTX_free(ctx) }
        var pkey: OpaquePointer?
        guard EVP_PKEY_keygen_init(ctx) == 1, EVP_PKEY_CTX_set_group_name(ctx, "P-256") == 1,
              EVP_PKEY_generate(ctx, &pkey) == 1, let key = pkey else { throw CryptoError.openSSL("EC key generation") }
        return try SigningKey(pkey: key)
    }

    public static func load(pem: String) throws -> SigningKey {
        let bytes = Array(pem.utf8)
        guard let bio = BIO_new_mem_buf(bytes, Int32(bytes.count)) else { throw CryptoError.openSSL("BIO_new_mem_buf") }
        defer { BIO_free(bio) }
        guard let key = PEM_read_bio_PrivateKey(bio, nil, nil, nil) else { throw CryptoError.openSSL("PEM_read_bio_PrivateKey") }
        guard EVP_PKEY_get_base_id(key) == EVP_PKEY_EC else { EVP_PKEY_free(key); throw CryptoError.openSSL("not an EC key") }
        return try SigningKey(pkey: key)
    }

    /// PKCS#8 PEM of the private key, for persistence.
    public func privateKeyPEM() throws -> String {
        guard let bio = BIO_new(BIO_s_mem()) else { throw CryptoError.openSSL("BIO_new") }
        defer { BIO_free(bio) }
        guard PEM_write_bio_PrivateKey(bio, pkey, nil, nil, 0, nil, nil) == 1 else { throw CryptoError.openSSL("PEM_write") }
        var ptr: UnsafeMutablePointer<CChar>?
        let len = BIO_ctrl(bio, BIO_CTRL_INFO, 0, &ptr)
        guard len > 0, let p = ptr else { throw CryptoError.openSSL("BIO_get_mem_data") }
        return String(decoding: UnsafeRawBufferPointer(start: p, count: Int(len)), as: UTF8.self)
    }

    /// JWS signature in the raw r||s form JWTs use (not DER).
    public func sign(_ message: [UInt8]) throws -> [UInt8] {
        guard let md = EVP_MD_CTX_new() else { throw CryptoError.openSSL("EVP_MD_CTX_new") }
        defer { EVP_MD_CTX_free(md) }
        // A DER ECDSA P-256 signature is at most 72 bytes; asking OpenSSL for the size first would cost a call.
        var len = 72
        var der = [UInt8](repeating: 0, count: len)
        guard EVP_MD_CTX_copy_ex(md, signTemplate) == 1,
              EVP_DigestSign(md, &der, &len, message, message.count) == 1 else { throw CryptoError.openSSL("DigestSign") }
        var cursor: UnsafePointer<UInt8>? = der.withUnsafeBufferPointer { $0.baseAddress }
        let raw: [UInt8]? = der.withUnsafeBufferPointer { buf -> [UInt8]? in
            cursor = buf.baseAddress
            guard let sig = d2i_ECDSA_SIG(nil, &cursor, len) else { return nil }
            defer { ECDSA_SIG_free(sig) }
            var out = [UInt8](repeating: 0, count: 64)
            guard BN_bn2binpad(ECDSA_SIG_get0_r(sig), &out, 32) == 32 else { return nil }
            let ok = out.withUnsafeMutableBufferPointer { BN_bn2binpad(ECDSA_SIG_get0_s(sig), $0.baseAddress! + 32, 32) }
            return ok == 32 ? out : nil
        }
        guard let signature = raw else { throw CryptoError.openSSL("ECDSA_SIG") }
        return signature
    }

    /// Verifies a raw r||s signature made by this key.
    public func verify(_ message: [UInt8], signature: [UInt8]) -> Bool {
        guard signature.count == 64, let sig = ECDSA_SIG_new() else { return false }
        defer { ECDSA_SIG_free(sig) }
        let r = BN_bin2bn(signature, 32, nil)
        let s = signature.withUnsafeBufferPointer { BN_bin2bn($0.baseAddress! + 32, 32, nil) }
        guard ECDSA_SIG_set0(sig, r, s) == 1 else { BN_free(r); BN_free(s); return false }
        var derPtr: UnsafeMutablePointer<UInt8>?
        let derLen = i2d_ECDSA_SIG(sig, &derPtr)
        guard derLen > 0, let der = derPtr else { return false }
        defer { CRYPTO_free(der, #file, #line) }
        guard let md = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(md) }
        guard EVP_MD_CTX_copy_ex(md, verifyTemplate) == 1 else { return false }
        return EVP_DigestVerify(md, der, Int(derLen), message, message.count) == 1
    }

    /// A new digest context set up by `initialize`; freed again if that fails.
    private static func digestContext(_ initialize: (OpaquePointer) -> Int32) throws -> OpaquePointer {
        guard let context = EVP_MD_CTX_new() else { throw CryptoError.openSSL("EVP_MD_CTX_new") }
        guard initialize(context) == 1 else {
            EVP_MD_CTX_free(context)
            throw CryptoError.openSSL("EVP_DigestInit")
        }
        return context
    }

    private static func publicCoordinates(_ pkey: OpaquePointer) throws -> (x: String, y: String) {
        func coordinate(_ name: String) throws -> String {
            var bn: OpaquePointer?
            guard EVP_PKEY_get_bn_param(pkey, name, &bn) == 1, let n = bn else { throw CryptoError.openSSL("get \(name)") }
            defer { BN_free(n) }
            var out = [UInt8](repeating: 0, count: 32)
            guard BN_bn2binpad(n, &out, 32) == 32 else { throw CryptoError.openSSL("bn2bin") }
            return Base64URL.encode(out)
        }
        return (try coordinate("qx"), try coordinate("qy"))
    }
}
