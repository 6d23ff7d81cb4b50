import Foundation
import LatchkeyCore

/// One `identities.custom_jwt.<name>` entry: the operator's own JWTs (App Services `custom-token`), with exactly one
/// of `hs256_secret_file`, `public_key_file` (PEM, RSA or P-256) and `jwks_url`.
struct CustomJWTEntry: Decodable {
    var audiences: [String]?
    var issuer: String?
    var hs256SecretFile: String?
    var publicKeyFile: String?
    var jwksURL: String?
    var caFile: String?
    var claims: [String: String]?
    var trustEmail: Bool?

    init(from decoder: any Decoder) throws {
        let entry = try decoder.entryKeys(known: ["audiences", "issuer", "hs256_secret_file", "public_key_file", "jwks_url", "ca_file",
                                                  "claims", "trust_email"])
        audiences = try entry.optional("audiences")
        issuer = try entry.optional("issuer")
        hs256SecretFile = try entry.optional("hs256_secret_file")
        publicKeyFile = try entry.optional("public_key_file")
        jwksURL = try entry.optional("jwks_url")
        caFile = try entry.optional("ca_file")
        claims = try entry.optional("claims")
        trustEmail = try entry.optional("trust_email")
    }

    func issuer(_ name: String, key: String, folder: String?) throws -> CustomJWTIssuer {
        try IdentityProviderSettings.checkName(name, key: key)
        guard let audiences, !audiences.isEmpty, !audiences.contains(where: \.isEmpty) else {
            throw ConfigError(key: "\(key).audiences", message: "is required: the audiences the tokens must name")
        }
        let given = [hs256SecretFile, publicKeyFile, jwksURL].compactMap { $0 }
        guard given.count == 1 else {
            throw ConfigError(key: key, message: "needs exactly one of hs256_secret_file, public_key_file and jwks_url")
        }
        let keys: CustomJWTIssuer.Keys
        if let secret = try EntryFiles.secret(hs256SecretFile, key: "\(key).hs256_secret_file", folder: folder) {
            guard secret.utf8.count >= 32 else {
                throw ConfigError(key: "\(key).hs256_secret_file", message: "must hold a secret of at least 32 bytes")
            }
            keys = .hs256(secret: Array(secret.utf8))
        } else if let file = try EntryFiles.readable(publicKeyFile, key: "\(key).public_key_file", folder: folder) {
            keys = .publicKeyPEM((try? String(contentsOfFile: file, encoding: .utf8)) ?? "")
        } else {
            try IdentityProviderSettings.checkKeySetURL(jwksURL!, key: "\(key).jwks_url")
            keys = .jwks(url: jwksURL!, caFile: try EntryFiles.readable(caFile, key: "\(key).ca_file", folder: folder))
        }
        return CustomJWTIssuer(name: name, keys: keys, audiences: audiences, issuer: issuer, claims: claims ?? [:],
                               trustsEmail: trustEmail ?? false)
    }
}
