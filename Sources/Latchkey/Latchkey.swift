import ArgumentParser

@main
struct Latchkey: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "latchkey",
        abstract: "A self-hosted identity server: sign-up, sign-in, password reset and tokens.",
        subcommands: [ServeCommand.self, MigrateCommand.self, AuditCommand.self, MailCommand.self],
        defaultSubcommand: ServeCommand.self
    )
}

struct ConfigOption: ParsableArguments {
    @Option(name: .long, help: "YAML configuration file (default: config/latchkey.yaml when present).")
    var config: String?
}
