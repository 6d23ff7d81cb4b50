import Foundation
import LatchkeyCore
import LatchkeyHTTP
import LatchkeySMTP

/// The whole configuration: YAML file (optional) + `LATCHKEY_*` environment overrides + built-in defaults.
/// Each component reads its own section (`Sections/`); docs/configuration.md lists every key (a test holds it to the declared keys).
struct LatchkeyConfig {
    var server: ServerSettings
    var development: Bool
    var database: DatabaseSettings
    var mail: MailSettings
    var functions: [String: FunctionDefinition]
    var parse: ParseSettings
    var pagesDirectory: String?
    /// A file overriding the built-in common-password list.
    var commonPasswordsPath: String?
    var testingMailbox: Bool
    /// Set in test mode (`testing.enabled`): what it changed, for the banner and the testing API.
    var testMode: TestMode?
    var logLevel: String
    /// The operator's product on the pages and in mails (`pages.brand`).
    var brand: PageBrand
    /// Whether `log.level` was set (file or environment): operator commands print only warnings unless it was.
    var logLevelChosen: Bool
    var logFormat: LogSettings.Format
    var admin: AdminSettings
    var engine: EngineSettings
    /// The file this configuration came from; nil for the built-in defaults (and the environment).
    var file: String?

    /// Every section; a key in the file or environment that none declares is refused.
    static let sections: [any ConfigSection.Type] = [
        ServerSettings.self, DevelopmentSettings.self, DatabaseSettings.self, MailSettings.self, SMTPSettings.self,
        PageBrandSettings.self, ClientList.self, ResourceList.self, AttributeList.self, CodePolicy.self, PasswordSettings.self, LimitSettings.self, TokenPolicy.self,
        ResetSettings.self, AppServicesSettings.self, ParseSettings.self, FunctionDefinitions.self, RetentionSettings.self,
        TestingSettings.self, LogSettings.self, AdminSettings.self, IdentityProviderSettings.self, AnonymousSettings.self,
        MFASettings.self, OpenIDProviderSettings.self, AccountSettings.self, PasskeySettings.self,
    ]

    /// Where `latchkey` looks for a configuration file when `--config` is not given: the working directory's
    /// config/latchkey.yaml, else the system-wide one (the image's mount point).
    static let defaultFiles = ["config/latchkey.yaml", "/etc/latchkey/latchkey.yaml"]

    /// Names the file to read in the environment, as `--config` does on the command line (the option wins).
    static let fileVariable = "LATCHKEY_CONFIG"

    /// Reads `path` (else $LATCHKEY_CONFIG, else the first of `defaultFiles` that exists) and the environment; throws
    /// naming the bad key.
    static func load(path: String?, environment: [String: String]) throws -> LatchkeyConfig {
        var yaml: String?
        let named = path ?? environment[fileVariable].flatMap { $0.isEmpty ? nil : $0 }
        let file = named ?? defaultFiles.first { FileManager.default.fileExists(atPath: $0) }
        if let file {
            do { yaml = try String(contentsOfFile: file, encoding: .utf8) } catch {
                // Name what the operator gave (or where the default was found) and why: a mounted file the
                // image's user may not read says "Permission denied".
                let reason = access(file, R_OK) != 0 ? String(cString: strerror(errno)) : "not UTF-8 text"
                throw ConfigError(key: path != nil ? "--config" : named != nil ? fileVariable : "configuration", message: "cannot read \(file): \(reason)")
            }
        }
        let folder = file.map { (($0 as NSString).deletingLastPathComponent as NSString).standardizingPath }
        let source: ConfigSource
        do {
            source = try ConfigSource(yaml: yaml, fileDirectory: folder.map { $0.isEmpty ? "." : $0 },
                                      environment: environment.filter { $0.key != fileVariable }, sections: sections)
        } catch let error as ConfigError {
            throw error
        } catch {
            throw ConfigError(key: file ?? "(environment)", message: "not valid YAML: \(error)")
        }
        var config = try LatchkeyConfig(source)
        config.file = file
        return config
    }

    init(_ source: ConfigSource) throws {
        server = try ServerSettings(source.section(ServerSettings.section))
        development = try DevelopmentSettings(source.section(DevelopmentSettings.section)).development
        database = try DatabaseSettings(source.section(DatabaseSettings.section))
        mail = try MailSettings(source.section(MailSettings.section), publicHost: server.publicHost)
        let testing = try TestingSettings(source.section(TestingSettings.section))
        testingMailbox = testing.mailbox
        testMode = testing.enabled ? TestMode(allowRemote: testing.allowRemote, importFile: testing.importFile, exportOnExit: testing.exportOnExit,
                                              databaseKey: source.isSet("database.url") ? "database.url" : source.isSet("database.path") ? "database.path" : nil) : nil
        try testMode?.check(server: server)
        let log = try LogSettings(source.section(LogSettings.section))
        logLevel = log.level
        brand = try PageBrandSettings(source.section(PageBrandSettings.section)).brand
        logLevelChosen = source.isSet("log.level")
        logFormat = log.format
        admin = try AdminSettings(source.section(AdminSettings.section))

        let root = source.section("")
        engine = EngineSettings(publicURL: server.publicURL, clients: try ClientList.read(root),
                                attributes: try AttributeList.read(root))
        // Operators sign in to the console through the hosted pages as this built-in client.
        if let callback = admin.consoleCallbackURL { engine.clients.append(OperatorService.consoleClient(redirectURI: callback)) }
        engine.resources = try ResourceList.read(root)
        engine.codes = try CodePolicy(source.section(CodePolicy.section))
        let passwords = try PasswordSettings(source.section(PasswordSettings.section))
        engine.passwords = passwords.policy
        commonPasswordsPath = passwords.commonListPath
        engine.limits = try LimitSettings(source.section(LimitSettings.section))
        engine.tokens = try TokenPolicy(source.section(TokenPolicy.section))
        let reset = try ResetSettings(source.section(ResetSettings.section))
        engine.resetEnumerationProtection = reset.enumerationProtection
        engine.resetPollIntervalSeconds = reset.pollIntervalSeconds
        functions = try FunctionDefinitions.read(root)
        let accounts = try AccountSettings(source.section(AccountSettings.section), functions: Set(functions.keys))
        engine.resetRevokesApiKeys = accounts.resetRevokesApiKeys
        engine.keepIdentitiesVerifyingTheAddress = accounts.keepIdentitiesVerifyingTheAddress
        engine.legacyPasswordFunction = accounts.legacyPasswordFunction
        engine.mfa = try MFASettings(source.section(MFASettings.section), functions: Set(functions.keys))
        engine.identities = try IdentityProviderSettings(source.section(IdentityProviderSettings.section)).settings
        engine.identities.anonymousIdleDays = try AnonymousSettings(source.section(AnonymousSettings.section)).idleDays
        engine.openID = try OpenIDProviderSettings(source.section(OpenIDProviderSettings.section)).settings
        engine.passkeys = try PasskeySettings(source.section(PasskeySettings.section), publicURL: server.publicURL)
        let issuers = Set(engine.identities.providers.keys)
        let appServices = try AppServicesSettings(source.section(AppServicesSettings.section), functions: Set(functions.keys),
                                                  identityProviders: issuers, customJWT: Set(engine.identities.customJWT.keys))
        engine.apps = appServices.apps
        engine.linkTokenTTLSeconds = appServices.linkTTLSeconds
        engine.appSessionTTLSeconds = appServices.sessionTTLSeconds
        engine.appAnonymousSessionTTLSeconds = appServices.anonymousSessionTTLSeconds
        pagesDirectory = appServices.pagesDirectory
        parse = try ParseSettings(source.section(ParseSettings.section), functions: Set(functions.keys), identityProviders: issuers)
        engine.parseApps = parse.apps
        engine.parseSessionTTLSeconds = parse.sessionTTLSeconds
        engine.parseMount = parse.mount
        engine.customFieldLimits = parse.fieldLimits
        let retention = try RetentionSettings(source.section(RetentionSettings.section),
                                              defaults: (engine.auditRetentionDays, engine.sentMailRetentionDays))
        engine.auditRetentionDays = retention.auditDays
        engine.sentMailRetentionDays = retention.sentMailDays
        if let testMode { try testMode.apply(to: &self) }
    }
}
