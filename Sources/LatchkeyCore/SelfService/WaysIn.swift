import Foundation

/// What is left to sign in with: an account never loses its last way in from its own page.
extension SelfService {
    /// Throws `.lastWayIn` unless the account keeps a way in once `removing` is gone: a password, a proven address
    /// (a mailed code signs in), a passkey, or a linked issuer.
    func requireAnotherWayIn(_ user: UserRecord, removing: WayIn, in tx: any Repositories) async throws {
        var ways: [WayIn] = []
        if user.passwordHash != nil { ways.append(.password) }
        if user.email != nil, user.emailVerified { ways.append(.address) }
        ways += try await tx.passkeys.passkeys(userId: user.id).map { WayIn.passkey($0.id) }
        ways += try await tx.identities.identities(userId: user.id).map { WayIn.identity($0.provider) }
        guard ways.contains(where: { $0 != removing }) else { throw LatchkeyError.lastWayIn }
    }
}

enum WayIn: Equatable {
    case password, address
    case passkey(String)
    case identity(String)
}
