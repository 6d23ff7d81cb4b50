import Foundation

/// A password that stayed in the old system (App Services never exported its hashes; an Auth0 export without the
/// support ticket's file): the account holds `$legacy$<source>` in place of a hash, and its first password sign-in asks
/// `accounts.legacy_password.function` whether the password is right. A yes stores Latchkey's own hash, so the function
/// is never asked again for that account; a no is a wrong password like any other.
enum LegacyPassword {
    static let prefix = "$legacy$"

    static func marker(source: String) -> String { prefix + source }

    static func source(of hash: String) -> String? {
        hash.hasPrefix(prefix) ? String(hash.dropFirst(prefix.count)) : nil
    }
}

extension AccountRules {
    /// The function's verdict on `password` for an account marked with `source`, its attempt already counted. An
    /// error, a timeout or an answer without `valid` fails closed as "try again" (the slot given back, the audit saying
    /// why), never as a wrong password; with no function configured the account has no usable password.
    func legacyVerdict(_ password: String, for user: UserRecord, source: String, caller: CallerInfo) async throws -> PasswordHasher.Verdict {
        guard let name = settings.legacyPasswordFunction, let function = engine.functions[name] else {
            logger.warning("legacy password without accounts.legacy_password.function", metadata: ["user": "\(user.id)"])
            return .mismatch
        }
        let input: JSONValue = .object([
            "user_id": .string(user.id), "email": user.email.map(JSONValue.string) ?? .null,
            "username": user.username.map(JSONValue.string) ?? .null, "password": .string(password), "source": .string(source),
        ])
        let reason: String
        switch await function.invoke(input) {
        case .answered(let data):
            if case .bool(let valid)? = JSONValue.decodeUntrusted([String: JSONValue].self, from: data)?["valid"] {
                return valid ? .matchNeedsRehash : .mismatch
            }
            reason = "answer is not {\"valid\": true|false}"
        case .failed(let why):
            reason = why
        }
        try await transaction { tx in
            try await tx.users.clearPasswordAttempts(userId: user.id)
            try await self.audit(tx, "legacy_password_failed", caller: caller, userId: user.id, email: user.email, detail: "\(name): \(reason)")
        }
        logger.warning("legacy password function failed", metadata: ["function": "\(name)", "reason": "\(reason)"])
        throw LatchkeyError.serverBusy(retryAfterSeconds: 5)
    }
}
