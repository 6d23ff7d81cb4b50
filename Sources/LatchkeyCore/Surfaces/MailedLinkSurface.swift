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

