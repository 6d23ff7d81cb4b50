/// The top-level `development` switch, `testing.mailbox` and `log.level`: how this process is run.
struct DevelopmentSettings: ConfigSection {
    static let section = ""
    static let keys = ["development"]

    var development: Bool

    init(_ config: SectionReader) throws { development = try config.bool("development", default: false) }
}

struct TestingSettings: ConfigSection {
    static let section = "testing"
    static let keys = ["mailbox", "enabled", "allow_remote", "import", "export_on_exit"]

    var mailbox: Bool
    /// Test mode (`latchkey serve --testing`): see `TestMode`.
    var enabled: Bool
    var allowRemote: Bool
    /// A state document (`POST /testing/v1/export`) loaded at start, and where the state is written at exit.
    var importFile: String?
    var exportOnExit: String?

    init(_ config: SectionReader) throws {
        mailbox = try config.bool("mailbox", default: false)
        enabled = try config.bool("enabled", default: false)
        allowRemote = try config.bool("allow_remote", default: false)
        if allowRemote && !enabled { throw config.error("allow_remote", "only applies to test mode (testing.enabled: true)") }
        importFile = try config.readableFile("import")
        exportOnExit = try config.path("export_on_exit", default: nil)
        for (key, value) in [("import", importFile), ("export_on_exit", exportOnExit)] where value != nil && !enabled {
            throw config.error(key, "only applies to test mode (testing.enabled: true)")
        }
    }
}

struct LogSettings: ConfigSection {
    static let section = "log"
    static let keys = ["level", "format"]
    static let levels = ["trace", "debug", "info", "notice", "warning", "error", "critical"]
    enum Format: String { case text, json }

    var level: String
    var format: Format

    init(_ config: SectionReader) throws {
        level = try config.string("level", default: "info")
        guard Self.levels.contains(level) else { throw config.error("level", "must be one of \(Self.levels.joined(separator: ", "))") }
        let format = try config.string("format", default: "text")
        guard let parsed = Format(rawValue: format) else { throw config.error("format", "must be text or json") }
        self.format = parsed
    }
}
