import Foundation
import Logging

/// The Parse surface (ParseSwift's and the Parse SDKs' wire): users, sessions, `authData`, the second factor, mailed
/// links and cloud functions. Its use cases live here, not on the engine; it reaches the engine as the kernel (store,
/// clock, keys, audit, limits) and for the account rules every surface shares (creating accounts, checking
/// passwords, proving addresses, linking identities, mail).
public struct ParseService: ParseSurface {
    let engine: LatchkeyEngine

    public init(engine: LatchkeyEngine) { self.engine = engine }

    // The kernel's parts this surface uses.
    public var settings: EngineSettings { engine.settings }
    var time: any TimeSource { engine.time }
    var logger: Logger { engine.logger }
    var keys: EngineKeys { engine.keys }
    var reader: any Repositories { engine.reader }

    func transaction<T: Sendable>(_ body: @escaping @Sendable (any Repositories) async throws -> T) async throws -> T {
        try await engine.transaction(body)
    }

    func audit(_ tx: any Repositories, _ kind: String, caller: CallerInfo, userId: String? = nil, email: String? = nil,
               detail: String? = nil) async throws {
        try await engine.audit(tx, kind, caller: caller, userId: userId, email: email, detail: detail)
    }

    func limit(_ rule: LimitSettings.Rule, _ subject: String?, caller: CallerInfo) async throws {
        try await engine.limit(rule, subject, caller: caller)
    }

    func limit(_ rule: LimitSettings.Rule, _ subject: String?, caller: CallerInfo, in tx: any Repositories) async throws -> LatchkeyError? {
        try await engine.limit(rule, subject, caller: caller, in: tx)
    }

    // The pages a mailed link opens, which Parse's link pages show as well.
    public func confirmEmail(token: String?, tokenId: String?, caller: CallerInfo) async throws {
        try await engine.confirmEmail(token: token, tokenId: tokenId, caller: caller)
    }
    public func confirmationLinkIsLive(token: String?, tokenId: String?) async throws -> Bool {
        try await engine.confirmationLinkIsLive(token: token, tokenId: tokenId)
    }
    public func resetLinkIsLive(token: String?, tokenId: String?) async throws -> Bool {
        try await engine.resetLinkIsLive(token: token, tokenId: tokenId)
    }
    public func resetPassword(token: String?, tokenId: String?, password: String?, caller: CallerInfo) async throws {
        try await engine.resetPassword(token: token, tokenId: tokenId, password: password, caller: caller)
    }
}
