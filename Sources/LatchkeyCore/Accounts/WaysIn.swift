import Foundation

/// What is left to sign in with: no surface (the account page, the operator, an unlink from an app) takes away an
/// account's last way in.
extension AccountRules {
    /// Throws `.lastWayIn` unless the account keeps a way in once `removing` is gone: a password, an address (a mailed
    /// code or reset reaches it), a passkey, or a linked issuer.
    func requireAnotherWayIn(_ user: UserRecord, removing: WayIn, in tx: any Repositories) async throws {
        var ways: [WayIn] = []
        if user.passwordHash != nil { ways.append(.password) }
        if user.email != nil { ways.append(.address) }
        ways += try await tx.passkeys.passkeys(userId: user.id).map { WayIn.passkey($0.id) }
        ways += try await tx.identities.identities(userId: user.id).map { WayIn.identity($0.provider) }
        guard ways.contains(where: { $0 != removing }) else { throw LatchkeyError.lastWayIn }
    }
}

/// One way into an account, as `requireAnotherWayIn` counts them.
enum WayIn: Equatable {
    case password, address
    case passkey(String)
    case identity(String)
}
