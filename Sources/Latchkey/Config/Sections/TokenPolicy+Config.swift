import LatchkeyCore

/// `tokens.*`: lifetimes of access, refresh and continuation tokens.
extension TokenPolicy: ConfigSection {
    static let section = "tokens"
    static let keys = ["access_ttl_seconds", "refresh_ttl_seconds", "refresh_reuse_grace_seconds", "flow_ttl_seconds"]

    init(_ config: SectionReader) throws {
        self.init()
        accessTTLSeconds = try config.int("access_ttl_seconds", default: accessTTLSeconds, range: 60...86400)
        refreshTTLSeconds = try config.int("refresh_ttl_seconds", default: refreshTTLSeconds, range: 60...31_536_000)
        refreshReuseGraceSeconds = try config.int("refresh_reuse_grace_seconds", default: refreshReuseGraceSeconds, range: 0...60)
        flowTTLSeconds = try config.int("flow_ttl_seconds", default: flowTTLSeconds, range: 1...3600)
    }
}
