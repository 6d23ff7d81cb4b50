import Foundation
import Logging

/// Recovery by the operator's function: it decides (or delivers) the reset.
extension AppServicesService {
    /// `reset/call`: runs the reset function with `{token, tokenId, username, password, currentPasswordValid}`
    /// followed by the spread `arguments`. `success` sets the password at once; `pending` leaves it until
    /// `reset` is called with the pair; `fail` changes nothing.
    public func callResetFunction(appId: String, email rawEmail: String?, password: String?, arguments: [JSONValue],
                                  caller: CallerInfo) async throws {
        let app = try requireApp(appId)
        try await limit(.resetPerIP, caller.ip, caller: caller)
        let email = try engine.accounts.requireEmail(rawEmail)
        guard app.reset == .function else { throw LatchkeyError.noRecoveryFunction(email: email) }
        guard let user = try await reader.users.find(email: email), user.status != .disabled else {
            throw LatchkeyError.userNotFound
        }
        let accepted = try engine.accounts.requireAcceptablePassword(password, identifiers: [email, user.username])
        // The current-password check is a password check like any other: counted, locked, audited.
        var currentValid = false
        if user.passwordHash != nil {
            currentValid = try await engine.accounts.countedPasswordCheck(accepted, for: user, caller: caller) != .mismatch
            if currentValid { try await engine.accounts.releasePasswordAttempt(userId: user.id) }
        }
        let hash = try await engine.passwords.hash(accepted)
        let tokens = try await transaction { tx in try await engine.proofs.issueLinkToken(.reset, for: user, in: tx) }
        let outcome = await callFunction(app.resetFunction, [.object([
            "token": .string(tokens.token), "tokenId": .string(tokens.tokenId), "username": .string(email),
            "password": .string(accepted), "currentPasswordValid": .bool(currentValid)])] + arguments)
        switch outcome.status {
        case .success:
            try await transaction { tx in
                var current = try await engine.proofs.redeemLinkToken(.reset, token: tokens.token, tokenId: tokens.tokenId, in: tx)
                try await engine.accounts.applyNewPassword(hash, to: &current, caller: caller, in: tx)
            }
        case .pending: return
        case .fail: throw LatchkeyError.recoveryFunctionRefused(email: email)
        }
    }

    func callFunction(_ name: String?, _ arguments: [JSONValue]) async -> FunctionOutcome {
        guard let name, let function = engine.functions[name] else {
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
