import Foundation
import Logging
import Synchronization

/// Which surface a call came through: metrics count sign-ins and sign-ups by it.
/// Who is calling: a dialect's router, the hosted pages of the OpenID provider (`openid`), or the operator.
/// The surface a request came through, as the audit, the metrics and the console record it.
public enum CallerDialect: String, Sendable, CaseIterable { case native, appServices = "app_services", parse, openID = "openid", console, admin }

/// Who is calling: the app's client id and where the request came from (for audit and, later, limits).
/// How a sign-in, sign-up or reset journey ends: tokens for an app, or a browser session (the hosted pages, whose
/// visit then goes on to the app that sent the browser). The surface that starts a journey says which; the engine
/// never infers it from the dialect.
public enum JourneyAudience: Sendable {
    case app
    case browser
}

public struct CallerInfo: Sendable {
    public var dialect: CallerDialect = .native
    /// Whom a journey this caller starts or continues ends for.
    public var audience: JourneyAudience = .app
    public var clientId: String?
    public var ip: String?
    public var userAgent: String?
    /// The request's Accept-Language, for mails to someone without a `locale` attribute.
    public var acceptLanguage: String?
    /// Who acts, for the operator's own calls: `console:<name>`, `admin-api`, `cli:<user>`. Nil for end users.
    public var actor: String?
    public init(dialect: CallerDialect = .native, clientId: String?, ip: String? = nil, userAgent: String? = nil,
                acceptLanguage: String? = nil, actor: String? = nil) {
        self.dialect = dialect; self.clientId = clientId; self.ip = ip; self.userAgent = userAgent; self.acceptLanguage = acceptLanguage
        self.actor = actor
    }
}

/// A refusal of a service's own (the operator's, the account page's, test mode's), thrown inside a transaction:
/// it rolls the transaction back and reaches the caller as itself, never as a store failure.
public protocol ServiceRefusal: ClassifiedError {}

/// The engine: every flow's business rules, once, for all dialects. No HTTP, no SQL.
public final class LatchkeyEngine: Sendable {
    public let store: any Store
    public let settings: EngineSettings
    public let time: any TimeSource
    public let logger: Logger
    let passwords: PasswordHashing
    /// The secret keys, one per purpose, derived from the stored server key.
    let keys: EngineKeys
    public let keyRing: SigningKeyRing
    /// The published keys, newest (the one that signs) first.
    public var signingKeys: [SigningKey] { keyRing.published }
    public let tenantId: String
    public let mailComposer: MailComposer
    /// Operator functions by name (webhook / command), for App Services confirmation and reset modes.
    let functions: [String: any OperatorFunction]
    let rateLimiter = RateLimiter()
    /// Clients made through the admin API or CLI (the configuration's are in `settings.clients`).
    let clientRegistry = ClientRegistry()
    /// One token strategy per configured OpenID issuer and custom JWT issuer, by provider name.
    let idTokenVerifiers: [String: IDTokenVerifier]
    let codeExchanger: (any CodeExchanger)?
    let metadataFetcher: (any ClientMetadataFetcher)?
    /// The published keys of clients that sign their assertions (private_key_jwt).
    let clientKeySets = ClientKeySets()

    private init(store: any Store, settings: EngineSettings, time: any TimeSource, logger: Logger,
                 serverKey: [UInt8], keyRing: SigningKeyRing, tenantId: String, mailComposer: MailComposer,
                 functions: [String: any OperatorFunction], verifiers: [String: IDTokenVerifier], codeExchanger: (any CodeExchanger)?,
                 metadataFetcher: (any ClientMetadataFetcher)?) {
        self.store = store; self.settings = settings; self.time = time; self.logger = logger
        self.passwords = PasswordHashing(parameters: settings.passwords.scrypt, concurrency: settings.hashingConcurrency,
                                         queueLimit: settings.hashingQueueLimit)
        self.keys = EngineKeys(serverKey: serverKey)
        self.keyRing = keyRing
        self.tenantId = tenantId
        self.mailComposer = mailComposer
        self.functions = functions
        self.idTokenVerifiers = verifiers
        self.codeExchanger = codeExchanger
        self.metadataFetcher = metadataFetcher
    }

    /// Loads the server key, tenant id and signing key from the store, creating them on first start.
    public static func start(store: any Store, settings: EngineSettings, mailComposer: MailComposer,
                             functions: [String: any OperatorFunction] = [:], issuerClient: (any KeySetFetcher & CodeExchanger)? = nil,
                             metadataFetcher: (any ClientMetadataFetcher)? = nil,
                             time: any TimeSource = SystemTime(), logger: Logger) async throws -> LatchkeyEngine {
        let now = time.now()
        // Insert-if-absent: replicas starting at once agree on one key, one tenant id and one first signing key.
        let bootstrap = try await bootstrap(store, now: now, logger: logger)
        let ring = try SigningKeyRing(records: bootstrap.2, retentionSeconds: settings.signingKeyRetentionSeconds, now: now)
        let engine = LatchkeyEngine(store: store, settings: settings, time: time, logger: logger,
                              serverKey: [UInt8](bootstrap.0), keyRing: ring,
                              tenantId: String(decoding: bootstrap.1, as: UTF8.self), mailComposer: mailComposer,
                              functions: functions,
                              verifiers: try await VerifierFactory.verifiers(settings.identities, fetcher: issuerClient, time: time,
                                                                             logger: logger),
                              codeExchanger: issuerClient, metadataFetcher: metadataFetcher)
        try await engine.reloadClients()
        return engine
    }

    // MARK: Shared rules

    /// The registered native client for `id`.
    public func requireClient(_ id: String?) throws -> ClientApplication {
        guard let id, !id.isEmpty else { throw LatchkeyError.missing(.clientId) }
        guard let client = client(id: id) else { throw LatchkeyError.unknownClient }
        return client
    }

    /// How any secret handed to a client (code, continuation or refresh token) is stored.
    func secretHash(_ secret: String) -> Data {
        Data(keys.token.mac(Array(secret.utf8)))
    }

    /// Runs a write transaction. Uniqueness conflicts become the engine's errors; other storage failures are
    /// logged and become `.storeFailure`.
    func transaction<T: Sendable>(_ body: @escaping @Sendable (any Repositories) async throws -> T) async throws -> T {
        try await mappingStoreErrors { try await store.transaction(body) }
    }

    /// One write on its own, outside any transaction (it joins the next group commit), with the errors mapped as
    /// `transaction` maps them.
    func standaloneWrite<T: Sendable>(_ body: (any Repositories) async throws -> T) async throws -> T {
        try await mappingStoreErrors { try await body(store.direct) }
    }

    private func mappingStoreErrors<T: Sendable>(_ write: () async throws -> T) async throws -> T {
        do {
            return try await write()
        } catch let error as LatchkeyError {
            throw error
        } catch let refusal as any ServiceRefusal {
            throw refusal
        } catch let conflict as StoreConflict {
            switch conflict {
            case .emailTaken: throw LatchkeyError.emailTaken
            case .usernameTaken: throw LatchkeyError.usernameTaken
            case .identityTaken: throw LatchkeyError.identityTaken
            case .providerAlreadyLinked: throw LatchkeyError.providerAlreadyLinked
            case .credentialTaken: throw LatchkeyError.passkeyRefused("this passkey is registered already")
            }
        } catch let cancelled as CancellationError {
            throw cancelled
        } catch {
            EngineMetrics.databaseErrors.increment()
            logger.error("store write failed", metadata: ["error": "\(error)"])
            throw LatchkeyError.storeFailure
        }
    }

    /// Stand-alone reads, outside any transaction.
    var reader: any Repositories { store.direct }

    /// The language to write to someone in: their `locale` attribute, else what their client asked for.
    func mailLocale(_ attributes: [String: JSONValue], caller: CallerInfo) -> String? {
        attributes["locale"]?.stringValue ?? caller.acceptLanguage
    }

    /// Tells the account's owner about a change to a way in (`what`: the factor, passkey or sign-in it concerns), in the
    /// transaction that makes the change; an account without an address is told nothing.
    func mailOwner(_ kind: MailKind, _ user: UserRecord, what: String, caller: CallerInfo, in tx: any Repositories) async throws {
        guard let email = user.email else { return }
        try await enqueue(mailComposer.compose(kind, to: email, factor: what, locale: mailLocale(user.attributes, caller: caller), at: time.now()),
                          in: tx)
    }

    func audit(_ tx: any Repositories, _ kind: String, caller: CallerInfo, userId: String? = nil,
               email: String? = nil, detail: String? = nil) async throws {
        try await tx.audit.append(auditEvent(kind, caller: caller, userId: userId, email: email, detail: detail))
    }

    /// An audit event as `audit` writes it, for a write that carries it with others (`SessionNote`).
    func auditEvent(_ kind: String, caller: CallerInfo, userId: String? = nil, email: String? = nil, detail: String? = nil,
                    at: Date? = nil) -> AuditEvent {
        AuditEvent(id: nil, at: at ?? time.now(), kind: kind, userId: userId, email: email, clientIp: caller.ip, userAgent: caller.userAgent,
                   detail: detail, dialect: caller.dialect.rawValue, actor: caller.actor)
    }
}
