import Foundation
import LatchkeyCore
import LatchkeyStorage
import Logging

/// What both `serve` and `migrate` need: a validated config, a logger and an opened, migrated store.
struct Runtime {
    let config: LatchkeyConfig
    let logger: Logger
    let store: SQLiteStore

    static func open(_ options: ConfigOption) throws -> Runtime {
        let config: LatchkeyConfig
        do {
            config = try LatchkeyConfig.load(path: options.config, environment: ProcessInfo.processInfo.environment)
        } catch let error as ConfigError {
            FileHandle.standardError.write(Data("latchkey: configuration error: \(error)\n".utf8))
            throw ExitCodeError.config
        }
        var logger = Logger(label: "latchkey")
        logger.logLevel = Logger.Level(rawValue: config.logLevel) ?? .info
        let store: SQLiteStore
        do {
            store = try SQLiteStore(path: config.databasePath, migrationsDirectory: config.migrationsDirectory,
                                    busyTimeoutSeconds: Double(config.busyTimeoutMilliseconds) / 1000)
            let applied = try store.migrate()
            for name in applied { logger.info("applied migration \(name)") }
        } catch {
            logger.critical("cannot open database \(config.databasePath): \(error)")
            throw ExitCodeError.database
        }
        return Runtime(config: config, logger: logger, store: store)
    }
}

enum ExitCodeError: Error {
    case config, database
    var code: Int32 { self == .config ? 78 : 74 }  // sysexits: EX_CONFIG, EX_IOERR
}
