import Foundation

/// The pages a mailed link opens (`/confirm`, `/reset-password`, and Parse's reset form): whether a link is live, and
/// what following it does. Both the OpenID provider's pages and Parse's link pages show them.
public protocol MailedLinkSurface: Sendable {
    var settings: EngineSettings { get }
    func confirmEmail(token: String?, tokenId: String?, caller: CallerInfo) async throws
    func confirmationLinkIsLive(token: String?, tokenId: String?) async throws -> Bool
    func resetLinkIsLive(token: String?, tokenId: String?) async throws -> Bool
    func resetPassword(token: String?, tokenId: String?, password: String?, caller: CallerInfo) async throws
}


/// A service's mailed links are the engine's: one implementation for every surface that shows them.
extension MailedLinkSurface where Self: EngineKernel {
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
