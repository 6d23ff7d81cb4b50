import Foundation

/// Sign-ins with another issuer (Apple, Google, any configured one): linked by redirect through the issuer's own
/// sign-in, unlinked after a recent sign-in (never the last way in). The owner is told either way.
extension SelfService {
    /// The redirect to the issuer and the sealed visit for the cookie; the callback links instead of signing in.
    public func beginLink(_ holder: AccountHolder, provider: String) async throws -> (redirect: String, cookie: String) {
        try await requireAssurance(.add(.identity), holder)
        return try PagesService(engine: engine).beginUpstreamSignIn(provider: provider, interaction: "", linking: holder.session.id)
    }

    /// The issuer's answer to a link begun at this browser: the identity joins this account (or is refused when it
    /// is another account's).
    public func finishLink(_ holder: AccountHolder, visit: UpstreamVisit, callback: String?, iss: String?, state: String?, code: String?,
                           error: String?, caller: CallerInfo) async throws {
        guard visit.linking == holder.session.id else { throw AccountPageRefusal.signedOut }
        try await requireAssurance(.add(.identity), holder)
        let caller = CallerInfo.selfService(caller)
        let identity = try await PagesService(engine: engine).upstreamIdentity(visit, callback: callback, iss: iss, state: state, code: code, error: error)
        try await transaction { tx in
            let user = try await self.current(holder, in: tx)
            try await self.engine.identity.link(identity, to: user, caller: caller, in: tx)
            try await self.engine.mailOwner(.signInLinked, user, what: PagesService.providerLabel(identity.provider), caller: caller, in: tx)
        }
    }

    public func unlink(_ holder: AccountHolder, provider: String, caller: CallerInfo) async throws {
        try await requireAssurance(.remove(.identity), holder)
        let caller = CallerInfo.selfService(caller)
        try await transaction { tx in
            let user = try await self.current(holder, in: tx)
            guard try await self.engine.identity.unlink(provider: provider, from: user, caller: caller, in: tx) else { throw AccountPageRefusal.notFound }
            try await self.engine.mailOwner(.signInUnlinked, user, what: PagesService.providerLabel(provider), caller: caller, in: tx)
        }
    }
}
