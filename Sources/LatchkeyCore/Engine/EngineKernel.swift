import Foundation
import Logging

/// A surface's service built on the engine: what every service reaches of it as the kernel (clock, keys, the store's
/// reads and transactions, audit, limits), written once. A service keeps its own use cases and calls `engine` only
/// for the account rules every surface shares.
public protocol EngineKernel: Sendable {
    var engine: LatchkeyEngine { get }
}

extension EngineKernel {
    var time: any TimeSource { engine.time }
    var logger: Logger { engine.logger }
    var keys: EngineKeys { engine.keys }
    var keyRing: SigningKeyRing { engine.keyRing }
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
}
