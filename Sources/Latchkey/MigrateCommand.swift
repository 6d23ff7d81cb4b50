import ArgumentParser

struct MigrateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "migrate", abstract: "Apply pending database migrations and exit.")
    @OptionGroup var options: ConfigOption

    func run() async throws {
        do {
            let runtime = try Runtime.open(options)
            runtime.logger.info("database \(runtime.config.databasePath) is up to date")
        } catch let error as ExitCodeError {
            throw ExitCode(error.code)
        }
    }
}
