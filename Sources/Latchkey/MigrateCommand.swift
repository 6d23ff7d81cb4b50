import ArgumentParser

struct MigrateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "migrate", abstract: "Create the database if needed, apply pending migrations and exit.")
    @OptionGroup var options: ConfigOption

    func run() async throws {
        let runtime = try await Runtime.open(options, chatty: true)
        runtime.logger.info("database \(runtime.storeDescription) is up to date")
    }
}
