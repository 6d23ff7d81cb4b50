import LatchkeyCore

/// `mfa.*`: the second factors users may enrol, the issuer authenticator apps show, and the function that sends
/// text messages. Each app's policy is `clients[].mfa` and `parse.apps[].mfa`.
extension MFASettings: ConfigSection {
    static let section = "mfa"
    static let keys = ["methods", "totp.issuer", "sms.function", "recent_sign_in_seconds"]

    init(_ config: SectionReader, functions: Set<String>) throws {
        self.init()
        var chosen = Set<Method>()
        for (index, name) in try config.stringList("methods", default: ["email", "totp"]).enumerated() {
            guard let method = Method(rawValue: name) else {
                throw ConfigError(key: "\(config.key("methods"))[\(index)]", message: "must be email, totp or sms (got \(name))")
            }
            chosen.insert(method)
        }
        methods = chosen
        totpIssuer = try config.string("totp.issuer", default: "Latchkey")
        recentSignInSeconds = try config.int("recent_sign_in_seconds", default: 600, range: 1...86_400)
        guard !totpIssuer.isEmpty, !totpIssuer.contains(":") else {
            throw config.error("totp.issuer", "must be a name without a colon (authenticator apps split the label on it)")
        }
        let function = try config.string("sms.function", default: "")
        if !function.isEmpty {
            guard functions.contains(function) else { throw config.error("sms.function", "\(function) is not declared under functions:") }
            smsFunction = function
        }
        if methods.contains(.sms), smsFunction == nil {
            throw config.error("sms.function", "is required when mfa.methods includes sms (Latchkey sends no text itself)")
        }
    }

    /// `mfa:` in a client or Parse app entry.
    static func policy(_ raw: String?, key: String) throws -> MFAPolicy {
        guard let raw else { return .off }
        guard let policy = MFAPolicy(rawValue: raw) else { throw ConfigError(key: key, message: "must be off, optional or required (got \(raw))") }
        return policy
    }
}
