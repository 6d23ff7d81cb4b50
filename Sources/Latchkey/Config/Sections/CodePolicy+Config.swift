import LatchkeyCore

/// `codes.*`: one-time codes.
extension CodePolicy: ConfigSection {
    static let section = "codes"
    static let keys = ["length", "ttl_seconds", "max_attempts", "resend_interval_seconds"]

    init(_ config: SectionReader) throws {
        self.init()
        length = try config.int("length", default: length, range: 6...10)
        ttlSeconds = try config.int("ttl_seconds", default: ttlSeconds, range: 60...86400)
        maxAttempts = try config.int("max_attempts", default: maxAttempts, range: 1...20)
        resendIntervalSeconds = try config.int("resend_interval_seconds", default: resendIntervalSeconds, range: 0...3600)
    }
}
