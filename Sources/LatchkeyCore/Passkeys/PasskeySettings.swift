import Foundation

/// Passkeys on the hosted pages (`passkeys.*`): off, or the relying party the browsers sign for.
public struct PasskeySettings: Sendable {
    public var enabled = false
    /// The relying party id: a domain name (WebAuthn refuses an IP address), the public URL's host by default.
    public var rpId = "localhost"
    /// What authenticators show as the site's name.
    public var rpName = "Latchkey"
    /// The origins a browser may sign from, compared exactly (the public URL's origin by default).
    public var origins: [String] = []
    /// How long a challenge handed to a browser lives.
    public var challengeSeconds = 300

    public init() {}

    public var relyingParty: RelyingParty { RelyingParty(id: rpId, name: rpName, origins: origins) }

    /// Whether `host` may be a WebAuthn relying party id: a domain name, not an IP address.
    public static func isDomainName(_ host: String) -> Bool {
        let bare = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        if bare.contains(":") { return false }  // an IPv6 address
        let labels = bare.split(separator: ".", omittingEmptySubsequences: false)
        if labels.count == 4, labels.allSatisfy({ UInt8($0) != nil }) { return false }  // an IPv4 address
        return !bare.isEmpty && labels.allSatisfy { !$0.isEmpty && $0.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" } }
    }
}
