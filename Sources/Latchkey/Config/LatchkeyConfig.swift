import Foundation
import LatchkeyCore
import LatchkeySMTP

/// The whole configuration: YAML file (optional) + `LATCHKEY_*` environment overrides + built-in defaults.
/// README's configuration reference lists every key read here.
struct LatchkeyConfig {
    enum MailTransportKind: String { case log, file, smtp }

    var host = "127.0.0.1"
    var port = 8080
    var publicURL = ""
    var idleTimeoutSeconds = 60
    var headerTimeoutSeconds = 10
    /// Allows the development defaults (dev client id, mail to the log, a loopback issuer) off loopback.
    var development = false
    var trustedProxies: [String] = []
    var corsAllowedOrigins: [String] = []
    var tlsCertificate: String?
    var tlsKey: String?
    /// Files that override what the binary carries (nil: the built-in copy).
    var commonPasswordsPath: String?
    var databasePath = "data/latchkey.sqlite"
    var migrationsDirectory: String?
    var busyTimeoutMilliseconds = 5000
    var mailTransport = MailTransportKind.log
    var mailFile = "data/mail.jsonl"
    var mailTemplates: String?
    var pagesDirectory: String?
    var functions: [String: FunctionDefinition] = [:]

    enum FunctionDefinition {
        case webhook(url: String, secret: String, timeoutSeconds: Int)
        case command(argv: [String], timeoutSeconds: Int)
    }
    var mailFrom = MailAddress(address: "no-reply@localhost", name: "Latchkey")
    var smtp: SMTPSettings?
    var outbox = OutboxPolicy()
    var testingMailbox = false
    var logLevel = "info"
    var engine: EngineSettings

    static let devClient = ClientApplication(id: "11111111-1111-1111-1111-111111111111", name: "dev")

    /// Sections and their scalar keys; an empty list marks a section that is a whole list (clients, attributes).
    static let schema: [String: [String]] = [
        "development": [],
        "retention": ["audit_days", "sent_mail_days"],
        "server": ["host", "port", "public_url", "idle_timeout_seconds", "header_timeout_seconds", "trusted_proxies", "cors.allowed_origins",
                   "tls.certificate", "tls.key"],
        "database": ["path", "migrations", "busy_timeout_ms"],
        "mail": ["transport", "file", "templates", "from.address", "from.name", "retry_base_seconds", "max_attempts", "lanes",
                 "smtp.host", "smtp.port", "smtp.username", "smtp.password", "smtp.password_file", "smtp.tls",
                 "smtp.verify_certificate", "smtp.ca_file", "smtp.timeout_seconds", "smtp.helo"],
        "clients": [], "attributes": [],
        "codes": ["length", "ttl_seconds", "max_attempts", "resend_interval_seconds"],
        "passwords": ["scrypt_log_n", "scrypt_r", "scrypt_p", "min_length", "max_length", "common_list"],
        "limits": ["enabled", "lockout.free_attempts", "lockout.base_seconds", "lockout.max_seconds"]
            + LimitSettings.Rule.allCases.flatMap { ["\($0.rawValue).requests", "\($0.rawValue).per_seconds"] },
        "tokens": ["access_ttl_seconds", "refresh_ttl_seconds", "refresh_reuse_grace_seconds", "flow_ttl_seconds"],
        "reset": ["enumeration_protection", "poll_interval_seconds"],
        "app_services": ["apps", "link_ttl_seconds", "pages"],
        "functions": [],
        "testing": ["mailbox"],
        "log": ["level"],
    ]

    /// Reads `path` (or config/latchkey.yaml when it exists) and the environment; throws naming the bad key.
    static func load(path: String?, environment: [String: String]) throws -> LatchkeyConfig {
        var yaml: String?
        let file = path ?? defaultFiles.first { FileManager.default.fileExists(atPath: $0) }
        if let file {
            do { yaml = try String(contentsOfFile: file, encoding: .utf8) } catch {
                throw ConfigError(key: "--config", message: "cannot read \(file)")
            }
        }
        let tree: ConfigTree
        let folder = file.map { (($0 as NSString).deletingLastPathComponent as NSString).standardizingPath }
        do {
            tree = try ConfigTree(yaml: yaml, fileDirectory: folder.map { $0.isEmpty ? "." : $0 }, environment: environment,
                                  knownSections: schema)
        } catch let error as ConfigError {
            throw error
        } catch {
            throw ConfigError(key: file ?? "(environment)", message: "not valid YAML: \(error)")
        }
        return try LatchkeyConfig(tree)
    }

    /// Where `latchkey` looks for a configuration file when `--config` is not given: the working directory's
    /// config/latchkey.yaml, else the system-wide one (the image's mount point).
    static let defaultFiles = ["config/latchkey.yaml", "/etc/latchkey/latchkey.yaml"]

    private init(_ tree: ConfigTree) throws {
        host = try tree.string("server.host", default: host)
        port = try tree.int("server.port", default: port, range: 0...65535)
        // A wildcard listen address is no URL a client can use: default to loopback and let operators say better.
        let reachableHost = ["0.0.0.0", "::", "[::]"].contains(host) ? "127.0.0.1" : host
        publicURL = try tree.string("server.public_url", default: "http://\(reachableHost):\(port)")
        while publicURL.hasSuffix("/") { publicURL.removeLast() }
        guard let url = URL(string: publicURL), ["http", "https"].contains(url.scheme ?? ""), url.host != nil else {
            throw ConfigError(key: "server.public_url", message: "must be an http(s) URL")
        }
        idleTimeoutSeconds = try tree.int("server.idle_timeout_seconds", default: idleTimeoutSeconds, range: 1...3600)
        headerTimeoutSeconds = try tree.int("server.header_timeout_seconds", default: headerTimeoutSeconds, range: 1...300)
        development = try tree.bool("development", default: false)
        trustedProxies = try tree.stringList("server.trusted_proxies", default: [])
        for (index, proxy) in trustedProxies.enumerated() where !IPAddressText.isValid(proxy) {
            throw ConfigError(key: "server.trusted_proxies[\(index)]", message: "must be an IP address (got \(proxy))")
        }
        corsAllowedOrigins = try tree.stringList("server.cors.allowed_origins", default: [])
        let certificate = try tree.path("server.tls.certificate", default: nil) ?? ""
        let key = try tree.path("server.tls.key", default: nil) ?? ""
        if certificate.isEmpty != key.isEmpty {
            throw ConfigError(key: certificate.isEmpty ? "server.tls.certificate" : "server.tls.key",
                              message: "server.tls.certificate and server.tls.key go together")
        }
        if !certificate.isEmpty {
            for (name, path) in [("server.tls.certificate", certificate), ("server.tls.key", key)]
            where !FileManager.default.isReadableFile(atPath: path) {
                throw ConfigError(key: name, message: "cannot read \(path)")
            }
            tlsCertificate = certificate
            tlsKey = key
        }
        databasePath = try tree.path("database.path", default: databasePath)!
        migrationsDirectory = try tree.path("database.migrations", default: nil)
        busyTimeoutMilliseconds = try tree.int("database.busy_timeout_ms", default: busyTimeoutMilliseconds, range: 10...60000)
        let transport = try tree.string("mail.transport", default: "log")
        guard let kind = MailTransportKind(rawValue: transport) else {
            throw ConfigError(key: "mail.transport", message: "must be log, file or smtp (got \(transport))")
        }
        mailTransport = kind
        mailFile = try tree.path("mail.file", default: mailFile)!
        mailTemplates = try tree.path("mail.templates", default: nil)
        let fromAddress = try tree.string("mail.from.address", default: "no-reply@\(URL(string: publicURL)?.host ?? "localhost")")
        guard EmailAddress.normalize(fromAddress) != nil || fromAddress.hasSuffix("@localhost") else {
            throw ConfigError(key: "mail.from.address", message: "is not an email address")
        }
        mailFrom = MailAddress(address: fromAddress, name: try tree.string("mail.from.name", default: "Latchkey"))
        outbox.retryBaseSeconds = Double(try tree.int("mail.retry_base_seconds", default: 30, range: 1...3600))
        outbox.maxAttempts = try tree.int("mail.max_attempts", default: 8, range: 1...50)
        outbox.lanes = try tree.int("mail.lanes", default: 2, range: 1...16)
        smtp = try Self.smtp(tree, required: kind == .smtp, helo: URL(string: publicURL)?.host ?? "localhost")
        testingMailbox = try tree.bool("testing.mailbox", default: false)
        logLevel = try tree.string("log.level", default: logLevel)
        guard ["trace", "debug", "info", "notice", "warning", "error", "critical"].contains(logLevel) else {
            throw ConfigError(key: "log.level", message: "must be one of trace, debug, info, notice, warning, error, critical")
        }

        engine = EngineSettings(publicURL: publicURL, clients: try Self.clients(tree), attributes: try Self.attributes(tree))
        engine.codes.length = try tree.int("codes.length", default: 8, range: 6...10)
        engine.codes.ttlSeconds = try tree.int("codes.ttl_seconds", default: 1800, range: 60...86400)
        engine.codes.maxAttempts = try tree.int("codes.max_attempts", default: 5, range: 1...20)
        engine.codes.resendIntervalSeconds = try tree.int("codes.resend_interval_seconds", default: 0, range: 0...3600)
        engine.passwords.scrypt = ScryptParameters(logN: try tree.int("passwords.scrypt_log_n", default: 17, range: 10...20),
                                                   r: try tree.int("passwords.scrypt_r", default: 8, range: 1...32),
                                                   p: try tree.int("passwords.scrypt_p", default: 1, range: 1...16))
        guard engine.passwords.scrypt.isWithinMemoryBudget else {
            throw ConfigError(key: "passwords.scrypt_log_n",
                              message: "with scrypt_r and scrypt_p this needs more than \(ScryptParameters.memoryBudget >> 20) MiB per hash (128·N·r·p)")
        }
        engine.passwords.minLength = try tree.int("passwords.min_length", default: 8, range: 1...256)
        engine.passwords.maxLength = try tree.int("passwords.max_length", default: 256, range: engine.passwords.minLength...4096)
        commonPasswordsPath = try tree.path("passwords.common_list", default: nil)
        engine.limits = try Self.limits(tree)
        functions = try Self.functions(tree)
        engine.apps = try Self.apps(tree, functions: Set(functions.keys))
        pagesDirectory = try tree.path("app_services.pages", default: nil)
        engine.auditRetentionDays = try tree.int("retention.audit_days", default: engine.auditRetentionDays, range: 1...36500)
        engine.sentMailRetentionDays = try tree.int("retention.sent_mail_days", default: engine.sentMailRetentionDays, range: 1...3650)
        engine.linkTokenTTLSeconds = try tree.int("app_services.link_ttl_seconds", default: 1800, range: 1...86400)
        engine.tokens.accessTTLSeconds = try tree.int("tokens.access_ttl_seconds", default: 3600, range: 60...86400)
        engine.tokens.refreshTTLSeconds = try tree.int("tokens.refresh_ttl_seconds", default: 2_592_000, range: 60...31_536_000)
        engine.tokens.refreshReuseGraceSeconds = try tree.int("tokens.refresh_reuse_grace_seconds", default: 5, range: 0...60)
        engine.resetEnumerationProtection = try tree.bool("reset.enumeration_protection", default: false)
        engine.resetPollIntervalSeconds = try tree.int("reset.poll_interval_seconds", default: 1, range: 1...30)
        engine.tokens.flowTTLSeconds = try tree.int("tokens.flow_ttl_seconds", default: 600, range: 1...3600)

        if let unknown = tree.unknownKeys().first { throw ConfigError(key: unknown, message: "unknown key") }
    }

    private static func functions(_ tree: ConfigTree) throws -> [String: FunctionDefinition] {
        guard let map = try tree.rawMap("functions") else { return [:] }
        var result: [String: FunctionDefinition] = [:]
        for (name, raw) in map {
            let key = "functions.\(name)"
            guard let item = raw as? [String: Any] else { throw ConfigError(key: key, message: "must be a mapping") }
            let timeout = item["timeout_seconds"] as? Int ?? 5
            guard (1...60).contains(timeout) else { throw ConfigError(key: "\(key).timeout_seconds", message: "must be between 1 and 60") }
            switch item["kind"] as? String {
            case "webhook":
                if let extra = item.keys.first(where: { !["kind", "url", "secret", "timeout_seconds"].contains($0) }) {
                    throw ConfigError(key: "\(key).\(extra)", message: "unknown key")
                }
                guard let url = item["url"] as? String, let parsed = URL(string: url), ["http", "https"].contains(parsed.scheme ?? "") else {
                    throw ConfigError(key: "\(key).url", message: "must be an http(s) URL")
                }
                guard let secret = item["secret"] as? String, !secret.isEmpty else {
                    throw ConfigError(key: "\(key).secret", message: "is required: requests are signed with it")
                }
                result[name] = .webhook(url: url, secret: secret, timeoutSeconds: timeout)
            case "command":
                if let extra = item.keys.first(where: { !["kind", "command", "timeout_seconds"].contains($0) }) {
                    throw ConfigError(key: "\(key).\(extra)", message: "unknown key")
                }
                guard let argv = item["command"] as? [String], let program = argv.first, program.hasPrefix("/"),
                      FileManager.default.isExecutableFile(atPath: program) else {
                    throw ConfigError(key: "\(key).command", message: "must be a list starting with the absolute path of an executable")
                }
                result[name] = .command(argv: argv, timeoutSeconds: timeout)
            default:
                throw ConfigError(key: "\(key).kind", message: "must be webhook or command")
            }
        }
        return result
    }

    private static func apps(_ tree: ConfigTree, functions: Set<String>) throws -> [AppServicesApp] {
        guard let items = try tree.list("app_services.apps") else { return [] }
        var seen = Set<String>()
        return try items.enumerated().map { index, item in
            let key = "app_services.apps[\(index)]"
            guard let id = item["id"] as? String, !id.isEmpty else { throw ConfigError(key: "\(key).id", message: "is required") }
            guard seen.insert(id).inserted else { throw ConfigError(key: "\(key).id", message: "is listed twice") }
            if let extra = item.keys.first(where: { !["id", "confirmation", "reset"].contains($0) }) {
                throw ConfigError(key: "\(key).\(extra)", message: "unknown key")
            }
            func mode(_ name: String) throws -> (String, String, String?) {
                guard let raw = item[name] else { return ("email", "", nil) }
                guard let map = raw as? [String: Any] else { throw ConfigError(key: "\(key).\(name)", message: "must be a mapping") }
                if let extra = map.keys.first(where: { !["mode", "url", "function"].contains($0) }) {
                    throw ConfigError(key: "\(key).\(name).\(extra)", message: "unknown key")
                }
                let function = map["function"] as? String
                if (map["mode"] as? String) == "function" {
                    guard let function, functions.contains(function) else {
                        throw ConfigError(key: "\(key).\(name).function", message: "must name a function declared under functions:")
                    }
                }
                return (map["mode"] as? String ?? "email", map["url"] as? String ?? "", function)
            }
            let (confirmation, confirmationURL, confirmationFunction) = try mode("confirmation")
            let (reset, resetURL, resetFunction) = try mode("reset")
            guard let confirmationMode = AppServicesApp.ConfirmationMode(rawValue: confirmation) else {
                throw ConfigError(key: "\(key).confirmation.mode", message: "must be auto, email or function")
            }
            guard let resetMode = AppServicesApp.ResetMode(rawValue: reset) else {
                throw ConfigError(key: "\(key).reset.mode", message: "must be email or function")
            }
            for (name, url) in [("confirmation", confirmationURL), ("reset", resetURL)] where !url.isEmpty {
                guard let parsed = URL(string: url), ["http", "https"].contains(parsed.scheme ?? "") else {
                    throw ConfigError(key: "\(key).\(name).url", message: "must be an http(s) URL")
                }
            }
            var app = AppServicesApp(id: id, confirmation: confirmationMode, confirmationURL: confirmationURL, reset: resetMode,
                                     resetURL: resetURL)
            app.confirmationFunction = confirmationMode == .function ? confirmationFunction : nil
            app.resetFunction = resetMode == .function ? resetFunction : nil
            return app
        }
    }

    private static func smtp(_ tree: ConfigTree, required: Bool, helo: String) throws -> SMTPSettings? {
        let host = try tree.string("mail.smtp.host", default: "")
        if host.isEmpty {
            if required { throw ConfigError(key: "mail.smtp.host", message: "is required with mail.transport: smtp") }
            return nil
        }
        let tlsName = try tree.string("mail.smtp.tls", default: "starttls")
        guard let security = SMTPSettings.Security(rawValue: tlsName) else {
            throw ConfigError(key: "mail.smtp.tls", message: "must be starttls, tls or none")
        }
        var password = try tree.string("mail.smtp.password", default: "")
        let passwordFile = try tree.path("mail.smtp.password_file", default: nil) ?? ""
        if !passwordFile.isEmpty {
            guard let text = try? String(contentsOfFile: passwordFile, encoding: .utf8) else {
                throw ConfigError(key: "mail.smtp.password_file", message: "cannot read \(passwordFile)")
            }
            password = text.trimmingCharacters(in: .newlines)
        }
        let caFile = try tree.path("mail.smtp.ca_file", default: nil) ?? ""
        if !caFile.isEmpty, !FileManager.default.isReadableFile(atPath: caFile) {
            throw ConfigError(key: "mail.smtp.ca_file", message: "cannot read \(caFile)")
        }
        let username = try tree.string("mail.smtp.username", default: "")
        return SMTPSettings(host: host, port: try tree.int("mail.smtp.port", default: security == .tls ? 465 : 587, range: 1...65535),
                            username: username.isEmpty ? nil : username, password: password.isEmpty ? nil : password,
                            security: security, verifyCertificate: try tree.bool("mail.smtp.verify_certificate", default: true),
                            caFile: caFile.isEmpty ? nil : caFile, heloName: try tree.string("mail.smtp.helo", default: helo),
                            timeoutSeconds: try tree.int("mail.smtp.timeout_seconds", default: 30, range: 1...600))
    }

    private static func limits(_ tree: ConfigTree) throws -> LimitSettings {
        var limits = LimitSettings()
        limits.enabled = try tree.bool("limits.enabled", default: true)
        for rule in LimitSettings.Rule.allCases {
            let current = limits.rules[rule]!
            limits.rules[rule] = RateRule(try tree.int("limits.\(rule.rawValue).requests", default: current.capacity, range: 1...1_000_000),
                                          per: try tree.int("limits.\(rule.rawValue).per_seconds", default: current.periodSeconds,
                                                            range: 1...86400))
        }
        limits.lockoutFreeAttempts = try tree.int("limits.lockout.free_attempts", default: limits.lockoutFreeAttempts, range: 1...100)
        limits.lockoutBaseSeconds = try tree.int("limits.lockout.base_seconds", default: limits.lockoutBaseSeconds, range: 1...3600)
        limits.lockoutMaxSeconds = try tree.int("limits.lockout.max_seconds", default: limits.lockoutMaxSeconds,
                                                range: limits.lockoutBaseSeconds...86400)
        return limits
    }

    private static func clients(_ tree: ConfigTree) throws -> [ClientApplication] {
        guard let items = try tree.list("clients") else { return [devClient] }
        var seen = Set<String>()
        return try items.enumerated().map { index, item in
            let key = "clients[\(index)]"
            guard let id = item["id"] as? String, !id.isEmpty else { throw ConfigError(key: "\(key).id", message: "is required") }
            guard seen.insert(id.lowercased()).inserted else { throw ConfigError(key: "\(key).id", message: "is listed twice") }
            if let extra = item.keys.first(where: { !["id", "name", "scopes"].contains($0) }) {
                throw ConfigError(key: "\(key).\(extra)", message: "unknown key")
            }
            var scopes: [String] = []
            if let raw = item["scopes"] {
                guard let list = raw as? [String], list.allSatisfy({ !$0.isEmpty && !$0.contains(" ") }) else {
                    throw ConfigError(key: "\(key).scopes", message: "must be a list of scope names")
                }
                scopes = list
            }
            return ClientApplication(id: id, name: item["name"] as? String ?? id, scopes: scopes)
        }
    }

    private static func attributes(_ tree: ConfigTree) throws -> [AttributeDefinition] {
        guard let items = try tree.list("attributes") else { return [] }
        return try items.enumerated().map { index, item in
            let key = "attributes[\(index)]"
            guard let name = item["name"] as? String, !name.isEmpty else { throw ConfigError(key: "\(key).name", message: "is required") }
            let typeName = item["type"] as? String ?? "string"
            guard let kind = AttributeDefinition.Kind(rawValue: typeName) else {
                throw ConfigError(key: "\(key).type", message: "must be string, boolean or number")
            }
            if let required = item["required"], !(required is Bool) {
                throw ConfigError(key: "\(key).required", message: "must be true or false")
            }
            let regex = item["regex"] as? String
            if let regex, (try? NSRegularExpression(pattern: regex)) == nil {
                throw ConfigError(key: "\(key).regex", message: "is not a valid regular expression")
            }
            if let extra = item.keys.first(where: { !["name", "type", "required", "regex"].contains($0) }) {
                throw ConfigError(key: "\(key).\(extra)", message: "unknown key")
            }
            return AttributeDefinition(name: name, kind: kind, required: item["required"] as? Bool ?? false, regex: regex)
        }
    }
}
