import Foundation
import LatchkeyCore
import LatchkeyStorage
import Logging

/// What every command needs: a validated config, a logger and an opened store. Only `serve` and `migrate`
/// create or migrate the database; operator commands open what exists (read-only where they only read).
struct Runtime {
    let config: LatchkeyConfig
    let logger: Logger
    let store: SQLiteStore

    static func open(_ options: ConfigOption, access: SQLiteStore.Access = .create) throws -> Runtime {
        try open(loadConfig(options), access: access)
    }

    static func open(_ config: LatchkeyConfig, access: SQLiteStore.Access = .create) throws -> Runtime {
        var logger = Logger(label: "latchkey")
        logger.logLevel = Logger.Level(rawValue: config.logLevel) ?? .info
        let store: SQLiteStore
        do {
            let migrations = try config.database.migrationsDirectory.map { directory in
                do { return try SQLMigrations.read(directory: directory) } catch {
                    throw StartupError(key: "database.migrations", message: "\(error)", exitCode: .config)
                }
            } ?? EmbeddedDefaults.migrations
            store = try SQLiteStore(path: config.database.path, migrations: migrations, access: access,
                                    busyTimeoutSeconds: Double(config.database.busyTimeoutMilliseconds) / 1000)
            if access == .create {
                for name in try store.migrate() { logger.info("applied migration \(name)") }
            }
        } catch let error as SQLiteStore.OpenError {
            let code: SysExit = switch error.kind { case .missing: .noInput; case .cannotCreate: .cannotCreate; case .unreadable: .noInput }
            throw StartupError(key: "database.path", message: error.description, exitCode: code)
        } catch let error as StartupError {
            throw error
        } catch {
            throw StartupError(key: "database.path", message: "cannot migrate \(config.database.path): \(error)", exitCode: .ioError)
        }
        return Runtime(config: config, logger: logger, store: store)
    }

    static func loadConfig(_ options: ConfigOption) throws -> LatchkeyConfig {
        do {
            return try LatchkeyConfig.load(path: options.config, environment: ProcessInfo.processInfo.environment)
        } catch let error as ConfigError {
            throw StartupError(key: error.key, message: error.message, exitCode: .config)
        }
    }
}

/// sysexits(3) codes, so scripts and supervisors can tell a bad config from a busy port.
enum SysExit: Int32 {
    case usage = 64, noInput = 66, unavailable = 69, cannotCreate = 73, ioError = 74, config = 78
}

/// An error an operator meets at start: printed as one line naming the key and the cause.
struct StartupError: Error {
    let key: String
    let message: String
    let exitCode: SysExit

    func report() -> Never {
        FileHandle.standardError.write(Data("latchkey: \(key): \(message)\n".utf8))
        exit(exitCode.rawValue)
    }
}
