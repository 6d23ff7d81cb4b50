import Foundation
import Logging
@testable import LatchkeyCore
import LatchkeySQLite

/// A mail transport that keeps what it is given, so tests can read the codes.
public final class RecordingTransport: MailTransport, @unchecked Sendable {
    private let lock = NSLock()
    private var sent: [MailMessage] = []
    public func deliver(_ message: MailMessage) async throws { lock.withLock { sent.append(message) } }
    public var messages: [MailMessage] { lock.withLock { sent } }
}

/// An engine over a real SQLite file in a temporary directory, with a manual clock.
public struct EngineHarness: Sendable {
    public static let client = "11111111-1111-1111-1111-111111111111"
    public let engine: LatchkeyEngine
    public let time: ManualTime
    public let transport = RecordingTransport()
    public let store: SQLiteStore
    public let directory: String
    public var caller: CallerInfo { CallerInfo(clientId: Self.client, ip: "127.0.0.1", userAgent: "tests") }

    public static var repositoryRoot: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
    }
    public static var migrations: String { repositoryRoot + "/Migrations/sqlite" }
    public static var postgresMigrations: String { repositoryRoot + "/Migrations/postgres" }

    public static func make(attributes: [AttributeDefinition] = [], configure: (inout EngineSettings) -> Void = { _ in }) async throws -> EngineHarness {
        let directory = NSTemporaryDirectory() + "latchkey-tests-" + UUID().uuidString
        let store = try SQLiteStore(path: directory + "/db.sqlite", migrations: SQLMigrations.read(directory: migrations))
        try store.migrate()
        var settings = EngineSettings(publicURL: "http://localhost", clients: [ClientApplication(id: client, name: "t")],
                                      attributes: attributes)
        settings.passwords.scrypt = ScryptParameters(logN: 10, r: 8, p: 1)
        configure(&settings)
        let time = ManualTime()
        let composer = try MailComposer.load(directory: repositoryRoot + "/config/templates")
        let engine = try await LatchkeyEngine.start(store: store, settings: settings, mailComposer: composer, time: time,
                                                    logger: Logger(label: "test"))
        return EngineHarness(engine: engine, time: time, store: store, directory: directory)
    }

    /// Delivers the outbox and returns the newest code mailed to `email`.
    public func lastCode(to email: String) async -> String? {
        _ = await engine.deliverPendingMail(via: transport, mailbox: nil)
        let address = EmailAddress.normalize(email) ?? email
        // The last mail that carries a code: one delivery sends its mails side by side (the outbox's lanes), so a notice
        // queued with a code (a second factor added, say) may be sent after it.
        for message in transport.messages.reversed() where message.to == address {
            if let code = message.text.split(whereSeparator: { !$0.isNumber }).first(where: { $0.count == engine.settings.codes.length }) {
                return String(code)
            }
        }
        return nil
    }

    /// A native password sign-in from its first step: initiate, choose the password, submit it.
    public func passwordSignIn(_ email: String, _ password: String) async throws -> SignInOutcome {
        guard case .started(let ct) = try await nativeAuthService.signInInitiate(username: email, challengeTypes: "password redirect", caller: caller),
              case .password(let ct2) = try await nativeAuthService.signInChallenge(continuationToken: ct, challengeTypes: "password redirect",
                                                                         caller: caller)
        else { throw LatchkeyError.flowTokenInvalid }
        return try await nativeAuthService.signInWithPassword(continuationToken: ct2, username: nil, password: password, scope: nil, caller: caller)
    }

    /// Sign-up with password up front, through to the completed continuation token.
    public func signUp(_ email: String, password: String = "a-strong-passphrase") async throws -> String {
        guard case .started(let ct) = try await nativeAuthService.signUpStart(username: email, password: password, attributes: nil,
                                                                   challengeTypes: "oob password redirect", caller: caller),
              case .code(_, let ct2) = try await nativeAuthService.signUpChallenge(continuationToken: ct, challengeTypes: "oob password redirect", caller: caller)
        else { throw LatchkeyError.flowTokenInvalid }
        let code = await lastCode(to: email)
        guard case .completed(let done, _) = try await nativeAuthService.signUpContinueWithCode(continuationToken: ct2, code: code, caller: caller)
        else { throw LatchkeyError.flowTokenInvalid }
        return done
    }
}

/// Tests write challenge lists the way the native API spells them.
extension ChallengeTypes: ExpressibleByStringLiteral {
    public init(stringLiteral value: String) {
        let words = Set(value.split(separator: " ").map(String.init))
        self.init(oob: words.contains("oob"), password: words.contains("password"), redirect: words.contains("redirect"),
                  capabilities: words.intersection(ChallengeTypes.knownCapabilities))
    }
}

/// The tests of first-factor sign-ins read the tokens as before; a second-factor step instead reads as no tokens.
extension SignInOutcome {
    public var accessToken: String { tokenSet?.accessToken ?? "" }
    public var idToken: String? { tokenSet?.idToken }
    public var refreshToken: String? { tokenSet?.refreshToken }
}

extension EngineHarness {
    // Each surface's service over this engine, as the composition root builds them.
    public var operatorService: OperatorService { OperatorService(engine: engine) }
    public var parseService: ParseService { ParseService(engine: engine) }
    public var appServicesService: AppServicesService { AppServicesService(engine: engine) }
    public var nativeAuthService: NativeAuthService { NativeAuthService(engine: engine) }
    public var pagesService: PagesService { PagesService(engine: engine) }
}
