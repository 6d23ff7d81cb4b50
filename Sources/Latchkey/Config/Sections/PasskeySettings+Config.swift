import Foundation
import LatchkeyCore

/// `passkeys.*`: WebAuthn on the hosted pages. The relying party id defaults to the public URL's host and the origins
/// to its origin; passkeys are on by default when that host is a domain name (WebAuthn forbids an IP address).
extension PasskeySettings: ConfigSection {
    static let section = "passkeys"
    static let keys = ["enabled", "rp_id", "rp_name", "origins"]

    init(_ config: SectionReader, publicURL: String) throws {
        self.init()
        let url = URL(string: publicURL)
        let host = url?.host ?? "localhost"
        rpId = try config.string("rp_id", default: host).lowercased()
        rpName = try config.string("rp_name", default: "Latchkey")
        let origin = url.map { "\($0.scheme ?? "https")://\(host)\($0.port.map { ":\($0)" } ?? "")" } ?? "https://\(host)"
        origins = try config.stringList("origins", default: [origin])
        let domain = Self.isDomainName(rpId)
        enabled = try config.bool("enabled", default: domain)
        guard enabled else { return }
        guard domain else {
            throw config.error("enabled", "passkeys need a domain name as the relying party id, and \(rpId) is an IP address "
                               + "(WebAuthn forbids one): use a name such as localhost in server.public_url, or set passkeys.rp_id")
        }
        guard !rpName.isEmpty else { throw config.error("rp_name", "must not be empty") }
        for (index, origin) in origins.enumerated() {
            guard let parsed = URL(string: origin), let scheme = parsed.scheme, ["https", "http"].contains(scheme), let originHost = parsed.host,
                  parsed.path.isEmpty, originHost == rpId || originHost.hasSuffix("." + rpId) else {
                throw ConfigError(key: "\(config.key("origins"))[\(index)]",
                                  message: "must be an origin (scheme://host[:port], no path) on \(rpId) or a subdomain of it (got \(origin))")
            }
            guard scheme == "https" || originHost == "localhost" || originHost.hasSuffix(".localhost") else {
                throw ConfigError(key: "\(config.key("origins"))[\(index)]", message: "must use https (only localhost may use http)")
            }
        }
    }
}
