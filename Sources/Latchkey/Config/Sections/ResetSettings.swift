/// `reset.*`: how password reset answers addresses it does not know, and the poll interval it advertises.
struct ResetSettings: ConfigSection {
    static let section = "reset"
    static let keys = ["enumeration_protection", "poll_interval_seconds"]

    var enumerationProtection: Bool
    var pollIntervalSeconds: Int

    init(_ config: SectionReader) throws {
        enumerationProtection = try config.bool("enumeration_protection", default: false)
        pollIntervalSeconds = try config.int("poll_interval_seconds", default: 1, range: 1...30)
    }
}
