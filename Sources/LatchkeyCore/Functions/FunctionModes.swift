import Foundation
import Logging

/// App Services' function modes: the operator's function decides confirmations and resets.
extension LatchkeyEngine {
    /// Runs the confirmation function with `{token, tokenId, username}`: `success` confirms, `pending` leaves the
    /// account pending (the function delivers the pair out of band), `fail` removes a new account (register)
    /// or leaves it pending (retry).
    func runConfirmationFunction(_ app: AppServicesApp, user: UserRecord, tokens: (token: String, tokenId: String),
                                 deleteOnFail: Bool, caller: CallerInfo) async throws {
        let outcome = await callFunction(app.confirmationFunction, [.object([
            "token": .string(tokens.token), "tokenId": .string(tokens.tokenId), "username": .string(user.email)])])
        try await transaction { tx in
            guard var current = try tx.user(id: user.id) else { return }
            switch outcome.status {
            case .success:
                current.status = .active
                current.emailVerified = true
                current.updatedAt = self.time.now()
                try tx.update(user: current)
                try self.audit(tx, "email_confirmed", caller: caller, userId: current.id, email: current.email, detail: "function")
            case .pending:
                return
            case .fail:
                if deleteOnFail { try tx.deleteUser(id: current.id) }
            }
        }
        if outcome.status == .fail { throw LatchkeyError.confirmationFailed(email: user.email) }
    }

    /// `confirm/call`: runs the confirmation function again for a pending user, with a fresh pair.
    public func retryConfirmation(appId: String, email rawEmail: String?, caller: CallerInfo) async throws {
        let app = try requireApp(appId)
        try await limit(.mailPerIP, caller.ip, caller: caller)
        let email = try requireEmail(rawEmail)
        guard app.confirmation == .function else {
            throw LatchkeyError.noConfirmationFunction(autoConfirm: app.confirmation == .auto, email: email)
        }
        let (user, tokens) = try await transaction { tx -> (UserRecord, (token: String, tokenId: String)) in
            guard let user = try tx.user(email: email) else { throw LatchkeyError.userNotFound }
            guard user.status == .pending else { throw LatchkeyError.userAlreadyConfirmed }
            return (user, try self.issueLinkToken(.confirmation, for: user, in: tx))
        }
        try await runConfirmationFunction(app, user: user, tokens: tokens, deleteOnFail: false, caller: caller)
    }

    /// `reset/call`: runs the reset function with `{token, tokenId, username, password, currentPasswordValid}`
    /// followed by the spread `arguments`. `success` sets the password at once; `pending` leaves it until
    /// `reset` is called with the pair; `fail` changes nothing.
    public func callResetFunction(appId: String, email rawEmail: String?, password: String?, arguments: [JSONValue],
                                  caller: CallerInfo) async throws {
        let app = try requireApp(appId)
        try await limit(.resetPerIP, caller.ip, caller: caller)
        let email = try requireEmail(rawEmail)
        guard app.reset == .function else { throw LatchkeyError.noResetFunction(email: email) }
        guard let user = try await store.read({ try $0.user(email: email) }), user.status != .disabled else {
            throw LatchkeyError.userNotFound
        }
        let accepted = try requireAcceptablePassword(password, email: email)
        // The current-password check is a password check like any other: counted, locked, audited.
        var currentValid = false
        if user.passwordHash != nil {
            currentValid = try await countedPasswordCheck(accepted, for: user, caller: caller) != .mismatch
            if currentValid { try await releasePasswordAttempt(userId: user.id) }
        }
        let hash = try await hashPassword(accepted)
        let tokens = try await transaction { tx in try self.issueLinkToken(.reset, for: user, in: tx) }
        let outcome = await callFunction(app.resetFunction, [.object([
            "token": .string(tokens.token), "tokenId": .string(tokens.tokenId), "username": .string(email),
            "password": .string(accepted), "currentPasswordValid": .bool(currentValid)])] + arguments)
        switch outcome.status {
        case .success:
            try await transaction { tx in
                var current = try self.redeemLinkToken(.reset, token: tokens.token, tokenId: tokens.tokenId, in: tx)
                try self.applyNewPassword(hash, to: &current, caller: caller, in: tx)
            }
        case .pending: return
        case .fail: throw LatchkeyError.resetFailed(email: email)
        }
    }

    private func callFunction(_ name: String?, _ arguments: [JSONValue]) async -> FunctionOutcome {
        guard let name, let function = functions[name] else {
            logger.error("operator function missing", metadata: ["function": "\(name ?? "-")"])
            return FunctionOutcome(status: .fail, message: "function \(name ?? "-") is not configured")
        }
        let outcome = await function.call(arguments)
        if outcome.status == .fail {
            logger.warning("operator function failed", metadata: ["function": "\(name)", "reason": "\(outcome.message ?? "answered fail")"])
        }
        return outcome
    }
}
