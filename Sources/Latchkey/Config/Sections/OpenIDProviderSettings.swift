import LatchkeyCore

/// `openid.*`: the OpenID provider's browser sessions (the hosted pages' sign-in cookie) and authorization codes.
struct OpenIDProviderSettings: ConfigSection {
    static let section = "openid"
    static let keys = ["session_hours", "code_seconds"]

    var settings = OpenIDSettings()

    init(_ config: SectionReader) throws {
        settings.sessionTTLSeconds = try config.int("session_hours", default: 336, range: 1...8760) * 3600
        settings.codeTTLSeconds = try config.int("code_seconds", default: 60, range: 1...600)
    }
}
