import Foundation
import Logging

/// The operator's surface (the admin API, the console, the CLI): its use cases live here, not on the engine. It holds
/// the engine only as the kernel (store, clock, keys, audit, limits) and for the account rules every surface shares
/// (sessions that end, factors that go, mails the owner gets), which it reaches through `engine`.
public struct OperatorService: OperatorSurface, EngineKernel {
    public let engine: LatchkeyEngine

    public init(engine: LatchkeyEngine) { self.engine = engine }

    public typealias AdminError = LatchkeyEngine.AdminError

    // What the operator's surface shows of the kernel (the console's overview reads the store and the clock).
    public var settings: EngineSettings { engine.settings }
    public var store: any Store { engine.store }
    public var time: any TimeSource { engine.time }
    public var logger: Logger { engine.logger }

    // The clients the console lists and edits (the configuration's and the stored ones).
    public var allClients: [ClientApplication] { engine.allClients }
    public func isStoredClient(_ id: String) -> Bool { engine.isStoredClient(id) }
    public func source(of client: ClientApplication) -> String { engine.source(of: client) }
    /// The passkeys of a page of users, for the export.
    public func passkeys(ofUsers ids: [String]) async throws -> [PasskeyRecord] { try await reader.passkeys.passkeys(userIds: ids) }
    /// The custom user data of a page of users, for the export.
    public func customData(ofUsers ids: [String]) async throws -> [CustomDataRecord] { try await reader.customData.customDocuments(userIds: ids) }
    /// The identities of a page of users, for the export.
    public func identities(ofUsers ids: [String]) async throws -> [String: [IdentityRecord]] {
        try await engine.identity.identities(ofUsers: ids)
    }
}
