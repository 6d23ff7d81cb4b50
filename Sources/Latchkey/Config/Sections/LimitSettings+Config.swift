import LatchkeyCore

/// `limits.*`: rate limits per rule, and the password lockout.
extension LimitSettings: ConfigSection {
    static let section = "limits"
    static let keys = ["enabled", "lockout.free_attempts", "lockout.base_seconds", "lockout.max_seconds"]
        + Rule.allCases.flatMap { ["\($0.rawValue).requests", "\($0.rawValue).per_seconds"] }

    init(_ config: SectionReader) throws {
        self.init()
        enabled = try config.bool("enabled", default: true)
        for rule in Rule.allCases {
            let current = rules[rule]!
            rules[rule] = RateRule(try config.int("\(rule.rawValue).requests", default: current.capacity, range: 1...1_000_000),
                                   per: try config.int("\(rule.rawValue).per_seconds", default: current.periodSeconds, range: 1...86400))
        }
        lockoutFreeAttempts = try config.int("lockout.free_attempts", default: lockoutFreeAttempts, range: 1...100)
        lockoutBaseSeconds = try config.int("lockout.base_seconds", default: lockoutBaseSeconds, range: 1...3600)
        lockoutMaxSeconds = try config.int("lockout.max_seconds", default: lockoutMaxSeconds, range: lockoutBaseSeconds...86400)
    }
}
