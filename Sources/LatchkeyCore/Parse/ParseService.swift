import Foundation
import Logging

/// The Parse surface (ParseSwift's and the Parse SDKs' wire): users, sessions, `authData`, the second factor, mailed
/// links and cloud functions. Its use cases live here, not on the engine; it reaches the engine as the kernel (store,
/// clock, keys, audit, limits) and for the account rules every surface shares (creating accounts, checking
/// passwords, proving addresses, linking identities, mail).
public struct ParseService: ParseSurface, EngineKernel {
    public let engine: LatchkeyEngine

    public init(engine: LatchkeyEngine) { self.engine = engine }

    public var settings: EngineSettings { engine.settings }

    // The pages a mailed link opens, which Parse's link pages show as well.
    public func confirmEmail(token: String?, tokenId: String?, caller: CallerInfo) async throws {
        try await engine.proofs.confirmEmail(token: token, tokenId: tokenId, caller: caller)
    }
    public func confirmationLinkIsLive(token: String?, tokenId: String?) async throws -> Bool {
        try await engine.proofs.confirmationLinkIsLive(token: token, tokenId: tokenId)
    }
    public func resetLinkIsLive(token: String?, tokenId: String?) async throws -> Bool {
        try await engine.proofs.resetLinkIsLive(token: token, tokenId: tokenId)
    }
    public func resetPassword(token: String?, tokenId: String?, password: String?, caller: CallerInfo) async throws {
        try await engine.proofs.resetPassword(token: token, tokenId: tokenId, password: password, caller: caller)
    }
}
