import Foundation

/// Following a mailed link: confirming an address and setting a new password. The App Services API, the hosted pages
/// and Parse's link pages all redeem links here.
extension Proofs {
    /// Whether a confirmation link can still confirm (read only: the hosted page shows its button only for one).
    /// A malformed pair is `.linkTokenMalformed`, as `confirmEmail` says.
    public func confirmationLinkIsLive(token: String?, tokenId: String?) async throws -> Bool {
        let (token, tokenId) = try Self.requireLinkShape(token, tokenId)
        return try await linkIsLive(.confirmation, token: token, tokenId: tokenId)
    }

    /// Confirms the pending account a confirmation link was mailed to (the API call and the hosted page).
    public func confirmEmail(token: String?, tokenId: String?, caller: CallerInfo) async throws {
        try await limit(.credentialPerIP, caller.ip, caller: caller)
        try await transaction { tx in
            let user = try await self.redeemLinkToken(.confirmation, token: token, tokenId: tokenId, in: tx)
            guard user.status == .pending else { throw LatchkeyError.userAlreadyConfirmed }
            try await engine.accounts.proveAddressAndSave(user, through: .registration("confirmation link"), caller: caller, in: tx)
        }
    }

    public func resetPassword(appId: String, token: String?, tokenId: String?, password: String?, caller: CallerInfo) async throws {
        _ = try engine.requireApp(appId)
        try await resetPassword(token: token, tokenId: tokenId, password: password, caller: caller)
    }

    /// Whether a reset link can still set a password (read only: the hosted form is shown only for one).
    public func resetLinkIsLive(token: String?, tokenId: String?) async throws -> Bool {
        let (token, tokenId) = try Self.requireLinkShape(token, tokenId)
        return try await linkIsLive(.reset, token: token, tokenId: tokenId)
    }

    /// Sets a new password from a reset link (the API call and the hosted page).
    public func resetPassword(token: String?, tokenId: String?, password: String?, caller: CallerInfo) async throws {
        try await limit(.credentialPerIP, caller.ip, caller: caller)
        // Shape first, so a malformed pair is refused as such whatever the password.
        let (token, tokenId) = try Self.requireLinkShape(token, tokenId)
        guard let record = try await reader.linkTokens.find(tokenId: tokenId.lowercased()),
              let owner = try await reader.users.find(id: record.userId) else { throw LatchkeyError.linkTokenInvalid }
        let accepted = try engine.accounts.requireAcceptablePassword(password, identifiers: [owner.email, owner.username])
        let hash = try await engine.passwords.hash(accepted)
        try await transaction { tx in
            var user = try await self.redeemLinkToken(.reset, token: token, tokenId: tokenId, in: tx)
            // The link reached the mailbox: the reset proves the address.
            try await engine.accounts.applyNewPassword(hash, to: &user, provesAddress: true, caller: caller, in: tx)
        }
    }
}
