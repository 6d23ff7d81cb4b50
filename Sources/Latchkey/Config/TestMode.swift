import Foundation
import LatchkeyCore

/// `latchkey serve --testing` (`testing.enabled`): the real server as app teams' integration tests want it. A
/// throwaway SQLite database (unless `database.*` names one), a ready app in every dialect with fixed ids, mails
/// captured in the testing mailbox instead of sent, a password hash cost far below production's, limits kept but
/// roomy, a clock tests can move forward, and the testing API under `/testing/v1/`.
///
/// Test mode can never reach a production deployment: it runs only on a database this run creates (a configured
/// `database.path` or `database.url` is refused, so no marker can go stale or be copied), listens on loopback only
/// unless `testing.allow_remote`, refuses a `public_url` that is not loopback and any `server.trusted_proxies` (a
/// server behind a proxy is reached from elsewhere), and its stand-in issuers sign only for the ready test audiences.
/// The database it made carries a marker, and a production start on such a database refuses.
struct TestMode: Sendable {
    var allowRemote: Bool
    /// A state document loaded at start (`testing.import`, `--import FILE`) and the file the state goes to at exit.
    var importFile: String?
    var exportOnExit: String?
    /// The configuration key that chose a database (`database.path`, `database.url`), which test mode refuses.
    var databaseKey: String?

    static let nativeClient = "11111111-1111-1111-1111-111111111111"
    static let strictClient = "22222222-2222-2222-2222-222222222222"
    static let webClient = "test-web"
    static let webSecret = "test-web-secret"
    static let appServicesApp = "test-app"
    static let parseApp = "testAppId"
    static let parseMasterKey = "test-master-key"
    /// scrypt's cost in test mode: 2^8 (production's default is 2^17). The configuration refuses anything below 2^10.
    static let passwordLogN = 8
    /// The function name test mode's captured text messages stand under when no `mfa.sms.function` is set.
    static let textSender = "test_mode_text_messages"
    /// The redirect URIs the web client takes: any loopback URI (any port, any path).
    static let webRedirects = ["http://127.0.0.1/*", "http://localhost/*"]
    /// The admin API's and the console's token when the configuration names none (the admin listener is loopback
    /// unless configured otherwise, and test mode holds no real accounts).
    static let adminToken = "test-admin-token-0123456789abcdef0123456789abcdef"

    /// The ready apps (next to any the configuration has), the capturing mailbox, the cost and the limits.
    func apply(to config: inout LatchkeyConfig) throws {
        var engine = config.engine
        let ready = [
            ClientApplication(id: Self.nativeClient, name: "test native app"),
            ClientApplication(id: Self.strictClient, name: "test native app with a second factor", mfa: .required),
            ClientApplication(id: Self.webClient, name: "test web app", redirectURIs: Self.webRedirects, postLogoutRedirectURIs: Self.webRedirects,
                              secretDigest: Digest.sha256(Array(Self.webSecret.utf8))),
        ]
        for client in ready where !engine.clients.contains(where: { ClientApplication.sameID($0.id, client.id) }) { engine.clients.append(client) }
        if !engine.apps.contains(where: { $0.id == Self.appServicesApp }) {
            var app = AppServicesApp(id: Self.appServicesApp)
            app.providers = ["local-userpass", "anon-user", "api-key", "oauth2-apple", "oauth2-google"]
            engine.apps.append(app)
        }
        if !engine.parseApps.contains(where: { $0.id == Self.parseApp }) {
            var app = ParseApp(id: Self.parseApp, masterKey: Self.parseMasterKey)
            app.verifyUserEmails = true
            app.mfa = .optional
            app.authProviders.formUnion(["apple", "google"])
            engine.parseApps.append(app)
        }
        // Apple and Google trust the stand-in issuer (`/testing/v1/issuer/{apple,google}`), configured or not.
        for name in ["apple", "google"] {
            let base = config.server.publicURL + "/testing/v1/issuer/" + name, audience = FakeIssuers.audience(name)
            // Only the test audience: a stand-in trusted for the operator's own audiences would vouch for any address there.
            var issuer = OpenIDIssuer(name: name, issuers: [base], jwksURL: base + "/jwks", audiences: [audience], trustsEmail: true)
            issuer.authorizationURL = base + "/authorize"
            issuer.codeExchange = CodeExchange(tokenURL: base + "/token", clientId: audience, clientSecret: FakeIssuers.clientSecret)
            engine.identities.providers[name] = issuer
        }
        engine.passwords.scrypt = ScryptParameters(logN: Self.passwordLogN, r: 8, p: 1)
        // Present but roomy: a suite signs up hundreds of accounts from one address in a minute.
        engine.limits.scale(by: 100)
        config.engine = engine
        config.testingMailbox = true
        config.mail.transport = .log
        // A well-known token only where no other machine reaches it: off loopback, the operator names a token file.
        if config.admin.token == nil, config.admin.host != nil, config.admin.isLoopback { config.admin.token = Self.adminToken }
        if databaseKey == nil {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-test-mode-\(UUID().uuidString)").path
            config.database.path = folder + "/latchkey.sqlite"
            config.database.postgres = nil
        }
    }

    /// Where test mode may run: a database of its own, published on loopback, no proxy in front, listening on loopback
    /// unless `testing.allow_remote` (a CI service container).
    func check(_ config: LatchkeyConfig) throws { try check(server: config.server) }

    /// The same, from the server section alone: the configuration runs it before the sections that derive from
    /// `public_url` (passkeys' origins), so a refused start names test mode's reason first.
    func check(server: ServerSettings) throws {
        if let databaseKey {
            throw StartupError(key: databaseKey, message: "test mode runs only on a database it creates and removes (it wipes data on request); "
                               + "\(databaseKey) is set (from the configuration file or LATCHKEY_\(databaseKey.uppercased().replacingOccurrences(of: ".", with: "_"))): "
                               + "unset it; to keep test state, export and import it", exitCode: .config)
        }
        guard let host = URLComponents(string: server.publicURL)?.host, DevelopmentDefaults.isLoopback(host) else {
            throw StartupError(key: "server.public_url", message: "test mode is published on loopback only (server.public_url is "
                               + "\(server.publicURL)): a public address is a deployment, not a test", exitCode: .config)
        }
        guard server.trustedProxies.isEmpty else {
            throw StartupError(key: "server.trusted_proxies", message: "test mode refuses a server behind a proxy (server.trusted_proxies is set): "
                               + "a proxy serves it to other machines", exitCode: .config)
        }
        guard allowRemote || DevelopmentDefaults.isLoopback(server.host) else {
            throw StartupError(key: "testing.enabled", message: "test mode listens on loopback only (server.host is \(server.host)); "
                               + "set testing.allow_remote: true (LATCHKEY_TESTING_ALLOW_REMOTE=true) for a CI service container", exitCode: .config)
        }
    }

    /// The folder of the temporary database, removed at exit; nil when the configuration chose the database.
    func temporaryFolder(_ config: LatchkeyConfig) -> String? {
        databaseKey != nil ? nil : (config.database.path as NSString).deletingLastPathComponent
    }
}

extension TestMode {
    /// The marker test mode leaves in the database it made: its accounts, keys and codes were made under a clock and
    /// a testing API anyone on the machine could drive, so a production start on it (a leftover temporary file, a
    /// `latchkey copy` of it) refuses.
    static let marker = "test_mode"

    static func claim(_ store: any Store) async throws {
        _ = try await store.direct.serverValues.insertIfAbsent(name: marker, value: Data("1".utf8))
    }

    /// A production start refuses a database test mode made.
    static func refuseTestDatabase(_ store: any Store, _ config: LatchkeyConfig) async throws {
        guard try await store.direct.serverValues.value(name: marker) != nil else { return }
        let key = config.database.postgres != nil ? "database.url" : "database.path"
        throw StartupError(key: key, message: "this database was made by test mode (latchkey serve --testing): its accounts and keys were made "
                           + "through the testing API, so a server outside test mode refuses it; start on another database", exitCode: .config)
    }

    /// `GET /testing/v1/config`: the ready apps' ids and where everything is.
    static func document(_ config: LatchkeyConfig) -> JSONValue {
        let base = config.server.publicURL
        return .object([
            "base_url": .string(base),
            "issuer": .string(config.engine.issuer),
            "native_client_id": .string(nativeClient), "native_mfa_client_id": .string(strictClient),
            "web_client_id": .string(webClient), "web_client_secret": .string(webSecret),
            "web_redirect_uris": .array(webRedirects.map(JSONValue.string)),
            "app_services_app_id": .string(appServicesApp), "app_services_base_url": .string(base + "/api/client/v2.0/app/" + appServicesApp),
            "parse_app_id": .string(parseApp), "parse_master_key": .string(parseMasterKey), "parse_server_url": .string(base + config.parse.mount),
            "mail": .string(base + "/testing/v1/mail"), "clock": .string(base + "/testing/v1/clock"),
            "password_hash_cost": .string("scrypt 2^\(passwordLogN)"),
            "admin_token": config.admin.token == adminToken ? .string(adminToken) : .null,
            "console_url": config.admin.consoleURL.map { .string($0 + "/console/") } ?? .null,
            "apple": .object(["issuer": .string(base + "/testing/v1/issuer/apple"), "audience": .string(FakeIssuers.audience("apple"))]),
            "google": .object(["issuer": .string(base + "/testing/v1/issuer/google"), "audience": .string(FakeIssuers.audience("google"))]),
        ])
    }
}
