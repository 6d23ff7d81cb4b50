import LatchkeyCore

/// `identities.anonymous.*`: how long an anonymous account lives without a sign-in.
struct AnonymousSettings: ConfigSection {
    static let section = "identities.anonymous"
    static let keys = ["idle_days"]

    var idleDays: Int

    init(_ config: SectionReader) throws {
        idleDays = try config.int("idle_days", default: 90, range: 1...3650)
    }
}
