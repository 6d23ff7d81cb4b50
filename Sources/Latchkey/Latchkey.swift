import ArgumentParser
import Foundation

@main
struct Latchkey: AsyncParsableCommand {
    static let version = "0.7.0"
    static let configuration = CommandConfiguration(
        commandName: "latchkey",
        abstract: "A self-hosted identity server: sign-up, sign-in, password reset and tokens.",
        discussion: """
            Every command reads its configuration from --config PATH (before or after the command), else $LATCHKEY_CONFIG, else config/latchkey.yaml, else \
            /etc/latchkey/latchkey.yaml (when present), else built-in defaults; every key can be overridden from the \
            environment as LATCHKEY_<SECTION>_<KEY> (for example LATCHKEY_SERVER_PORT=9000). \
            For a development server: latchkey serve --config config/latchkey.dev.yaml; for test mode: latchkey serve --testing --port 8090. Keys: docs/configuration.md.
            """,
        version: version,
        subcommands: [ServeCommand.self, MigrateCommand.self, AuditCommand.self, MailCommand.self, CopyCommand.self, HealthcheckCommand.self,
                      UsersCommand.self, ClientsCommand.self, KeysCommand.self, ApiKeysCommand.self, ImportCommand.self, ExportCommand.self]
    )

    /// `latchkey` alone prints help rather than starting a server (and creating a database) in whatever folder it
    /// ran in; a first word that is neither an option nor a command is refused by name.
    static func main() async {
        signal(SIGPIPE, SIG_IGN)  // a peer or child that goes away is an error on that write, not the end of the server
        MallocTuning.limitArenas()
        // Everything Latchkey creates (the database and its WAL, mail files, exports, the import's temporary files)
        // holds password hashes, keys or mail: readable by its owner only, folders 0700, files 0600.
        umask(0o077)
        let arguments = ConfigOption.movedAfterCommand(Array(CommandLine.arguments.dropFirst()))
        let commands = Set(configuration.subcommands.compactMap { $0.configuration.commandName } + ["help"])
        if arguments.isEmpty {
            print(helpMessage())
            Foundation.exit(0)
        }
        if let first = arguments.first, !first.hasPrefix("-"), !commands.contains(first) {
            FileHandle.standardError.write(Data("latchkey: unknown command '\(first)' (commands: \(commands.sorted().joined(separator: ", ")))\n".utf8))
            Foundation.exit(SysExit.usage.rawValue)
        }
        do {
            var command = try parseAsRoot(arguments)
            if var asyncCommand = command as? AsyncParsableCommand { try await asyncCommand.run() } else { try command.run() }
        } catch let error as StartupError {
            error.report()
        } catch {
            exit(withError: error)
        }
    }
}

struct ConfigOption: ParsableArguments {
    @Option(name: .long, help: "YAML configuration file (default: $LATCHKEY_CONFIG, else config/latchkey.yaml, else /etc/latchkey/latchkey.yaml, when present). Relative paths in it are relative to its folder.")
    var config: String?

    /// `latchkey --config FILE users list` reads as `latchkey users list --config FILE`: people put the file first,
    /// and every command takes it.
    static func movedAfterCommand(_ arguments: [String]) -> [String] {
        guard let first = arguments.first else { return arguments }
        if first == "--config", arguments.count >= 2 { return Array(arguments.dropFirst(2)) + arguments.prefix(2) }
        if first.hasPrefix("--config=") { return Array(arguments.dropFirst()) + [first] }
        return arguments
    }
}
