import Foundation
import LatchkeyCore
import LatchkeyPostgres
import LatchkeySQLite
import Logging

/// What every command needs: a validated config, a logger and an opened store. Only `serve` and `migrate`
/// create or migrate the database; operator commands open what exists (read-only where they only read).
struct Runtime {
    let config: LatchkeyConfig
    let logger: Logger
    let store: any Store
    /// Where the data lives, for logs: the SQLite file or the PostgreSQL URL without its password.
    let storeDescription: String

    static func open(_ options: ConfigOption, access: StoreAccess = .create, chatty: Bool = false) async throws -> Runtime {
        try await open(loadConfig(options), access: access, chatty: chatty)
    }

    /// `chatty` is for the server and `migrate`, whose `info` lines are their report; any other command's output is its
    /// answer, so it logs warnings and errors only, unless `log.level` asks for more.
    static func open(_ config: LatchkeyConfig, access: StoreAccess = .create, chatty: Bool = false) async throws -> Runtime {
        // A configured key that cannot verify anything is the configuration's mistake, named before anything opens.
        for (name, issuer) in config.engine.identities.customJWT.sorted(by: { $0.key < $1.key }) where !(await CustomJWTIssuer.keyIsUsable(issuer.keys)) {
            throw StartupError(key: "identities.custom_jwt.\(name).public_key_file", message: "is not an RSA or P-256 public key in PEM",
                               exitCode: .config)
        }
        Observability.bootstrapLogging(format: config.logFormat)
        var logger = Logger(label: "latchkey")
        logger.logLevel = Logger.Level(rawValue: config.logLevel) ?? .info
        if !chatty, !config.logLevelChosen { logger.logLevel = max(logger.logLevel, .warning) }
        let migrations = try config.database.migrationsDirectory.map { directory in
            do { return try SQLMigrations.read(directory: directory) } catch {
                throw StartupError(key: "database.migrations", message: "\(error)", exitCode: .config)
            }
        }
        if let postgres = config.database.postgres {
            let store = try await openPostgres(postgres, migrations: migrations ?? EmbeddedDefaults.postgresMigrations, access: access,
                                               logger: logger)
            if postgres.mayBeDowngraded {
                logger.warning("database.tls is 'prefer' for \(postgres.host): whoever sits on the network path can downgrade the connection to clear text. Use verify-full (or require).")
            }
            announce(config, database: postgres.safeDescription, logger: logger)
            return Runtime(config: config, logger: logger, store: store, storeDescription: postgres.safeDescription)
        }
        let store = try openSQLite(config, migrations: migrations ?? EmbeddedDefaults.migrations, access: access, logger: logger)
        warnIfReadableByOthers(config.database.path, logger: logger)
        announce(config, database: config.database.path, logger: logger)
        return Runtime(config: config, logger: logger, store: store, storeDescription: config.database.path)
    }

    /// Every command says what it opened (on standard error, so its own output stays clean for scripts).
    private static func announce(_ config: LatchkeyConfig, database: String, logger: Logger) {
        logger.info("configuration \(config.file ?? "built-in defaults and the environment"), database \(database)")
    }

    /// README's development server's configuration, relative to the checkout.
    private static let developmentFile = "config/latchkey.dev.yaml"

    private static func openSQLite(_ config: LatchkeyConfig, migrations: [(name: String, text: String)], access: StoreAccess,
                                   logger: Logger) throws -> SQLiteStore {
        do {
            let store = try SQLiteStore(path: config.database.path, migrations: migrations, access: access,
                                        busyTimeoutSeconds: Double(config.database.busyTimeoutMilliseconds) / 1000)
            if access == .create {
                for name in try store.migrate() { logger.info("applied migration \(name)") }
            }
            return store
        } catch let error as SQLiteStore.OpenError {
            let code: SysExit = switch error.kind { case .missing: .noInput; case .cannotCreate: .cannotCreate; case .unreadable: .noInput }
            if error.kind == .missing, config.file == nil, FileManager.default.fileExists(atPath: developmentFile) {
                // `migrate` would make a second, empty database beside the development server's: point at the server's.
                throw StartupError(key: "database.path", message: "no database at \(config.database.path): no configuration was "
                                   + "named, so built-in defaults were read; the development server's is \(developmentFile) "
                                   + "(pass --config \(developmentFile) or set \(LatchkeyConfig.fileVariable)=\(developmentFile))",
                                   exitCode: code)
            }
            throw StartupError(key: "database.path", message: error.description, exitCode: code)
        } catch {
            throw StartupError(key: "database.path", message: "cannot migrate \(config.database.path): \(error)", exitCode: .ioError)
        }
    }

    /// The database holds password hashes, the server's HMAC key and the signing keys: an existing file (or its
    /// folder) that others may read is worth a loud line; Latchkey does not change modes it did not set.
    private static func warnIfReadableByOthers(_ path: String, logger: Logger) {
        let parent = (path as NSString).deletingLastPathComponent, folder = parent.isEmpty ? "." : parent
        for candidate in [folder, path, path + "-wal", path + "-shm"] {
            guard let mode = (try? FileManager.default.attributesOfItem(atPath: candidate))?[.posixPermissions] as? Int,
                  mode & 0o077 != 0 else { continue }
            let fix = candidate == folder ? "700" : "600"
            logger.warning("\(candidate) is readable by other users (mode \(String(mode, radix: 8))): it holds password hashes and keys; chmod \(fix) it.")
        }
    }

    /// The server and `migrate` apply pending migrations (under the advisory lock, so replicas starting together apply
    /// each once), retrying for half a minute while the database comes up; other commands need a migrated database.
    private static func openPostgres(_ settings: PostgresSettings, migrations: [(name: String, text: String)],
                                     access: StoreAccess, logger: Logger) async throws -> PostgresStore {
        let store: PostgresStore
        do { store = try PostgresStore(settings: settings, migrations: migrations, logger: logger) } catch {
            throw StartupError(key: "database.url", message: "\(error)", exitCode: .config)
        }
        guard access == .create else {
            if await store.isReady() { return store }
            throw StartupError(key: "database.url", message: "\(settings.safeDescription) is unreachable or not migrated "
                               + "(start the server or run `latchkey migrate` first)", exitCode: .unavailable)
        }
        let deadline = ContinuousClock.now + .seconds(30)
        while true {
            do {
                for name in try await store.migrate() { logger.info("applied migration \(name)") }
                return store
            } catch {
                let reason = String(reflecting: error)
                guard ContinuousClock.now < deadline else {
                    throw StartupError(key: "database.url", message: "cannot reach or migrate \(settings.safeDescription): \(reason)",
                                       exitCode: .unavailable)
                }
                logger.warning("database not ready, retrying", metadata: ["database": "\(settings.safeDescription)", "error": "\(reason)"])
                try await Task.sleep(for: .seconds(2))
            }
        }
    }

    /// The engine over an existing database, for operator commands (they send no mail and run no functions).
    static func engine(_ options: ConfigOption, access: StoreAccess = .existing, chatty: Bool = false) async throws -> LatchkeyEngine {
        let runtime = try await open(options, access: access, chatty: chatty)
        let composer = try MailComposer.load(templates: EmbeddedDefaults.mailTemplates, source: "(built in)")
        return try await LatchkeyEngine.start(store: runtime.store, settings: runtime.config.engine, mailComposer: composer,
                                              logger: runtime.logger)
    }

    /// The operator's surface over an existing database, for the commands that are its use cases.
    static func operatorService(_ options: ConfigOption) async throws -> OperatorService {
        OperatorService(engine: try await engine(options))
    }

    /// `environment` adds to (and wins over) the process's: a command-line switch that stands for a key.
    static func loadConfig(_ options: ConfigOption, environment extra: [String: String] = [:]) throws -> LatchkeyConfig {
        do {
            return try LatchkeyConfig.load(path: options.config, environment: ProcessInfo.processInfo.environment.merging(extra) { _, flag in flag })
        } catch let error as ConfigError {
            throw StartupError(key: error.key, message: error.message, exitCode: .config)
        }
    }
}

/// sysexits(3) codes, so scripts and supervisors can tell a bad config from a busy port.
enum SysExit: Int32 {
    case usage = 64, dataError = 65, noInput = 66, unavailable = 69, cannotCreate = 73, ioError = 74, config = 78
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
