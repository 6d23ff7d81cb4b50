import Foundation

/// An operator's sign-in at the console: sealed (AES-GCM under a key derived from the server key) into its cookie,
/// so any replica serves it. One opened with the admin token is bound to that token (a new token ends every such
/// session); one opened by an account with the `operator` role is bound to that account, and lives while the account
/// is active, holds the role and keeps the refresh-token family the sign-in started. Either ends after `idleSeconds`
/// without a request or `absoluteSeconds` after sign-in.
public struct ConsoleSession: Codable, Sendable, Equatable {
    /// Random; keys the session's CSRF token and names the session in the audit trail.
    public var id: String
    /// The name the operator signed in under: every action is audited as `console:<name>`.
    public var operatorName: String
    public var startedAt: Date
    public var seenAt: Date
    var credential: Data
    /// The account that signed in through the hosted pages; nil for the admin token.
    public var userId: String?
    /// The refresh-token family that sign-in started: revoking the account's sessions ends the console's too.
    public var familyId: String?

    /// 1 to 64 letters, digits, spaces and `.-_@`: it goes into the audit trail and the pages as it is.
    public static func acceptableName(_ text: String?) -> String? {
        guard let name = text?.trimmingCharacters(in: .whitespaces), (1...64).contains(name.count),
              name.unicodeScalars.allSatisfy({ CharacterSet.alphanumerics.contains($0) || " .-_@".unicodeScalars.contains($0) })
        else { return nil }
        return name
    }
}

public struct ConsoleSessionPolicy: Sendable, Equatable {
    public var idleSeconds: Int
    public var absoluteSeconds: Int
    public init(idleSeconds: Int, absoluteSeconds: Int) { self.idleSeconds = idleSeconds; self.absoluteSeconds = absoluteSeconds }
}

extension OperatorService {
    /// A new session for an operator who presented the admin token (`credential` is its SHA-256).
    public func newConsoleSession(operatorName: String, credential: [UInt8]) -> ConsoleSession {
        let now = time.now()
        return ConsoleSession(id: SecureRandom.token(byteCount: 16), operatorName: operatorName, startedAt: now, seenAt: now,
                              credential: consoleBinding(credential))
    }

    public func sealConsoleSession(_ session: ConsoleSession) -> String {
        // Encoding a plain Codable struct cannot fail.
        let data = (try? JSONEncoder().encode(session)) ?? Data()
        return Base64URL.encode(keys.consoleSession.seal([UInt8](data)))
    }

    /// The session sealed in `text` if this server sealed it for this admin token and it has neither idled out nor
    /// outlived its absolute limit; its `seenAt` is now (seal it again to keep it alive).
    /// An account's session still needs `consoleAccountHolds` (a read of the store) before it is trusted.
    public func openConsoleSession(_ text: String?, credential: [UInt8], policy: ConsoleSessionPolicy) -> ConsoleSession? {
        guard let text, text.utf8.count <= 2048, let sealed = Base64URL.decode(text), let plain = keys.consoleSession.open(sealed),
              var session = try? JSONDecoder().decode(ConsoleSession.self, from: Data(plain)),
              Digest.constantTimeEqual([UInt8](session.credential),
                                       [UInt8](consoleBinding(session.userId.map { Self.accountCredential($0) } ?? credential)))
        else { return nil }
        let now = time.now()
        guard now < session.seenAt + Double(policy.idleSeconds), now < session.startedAt + Double(policy.absoluteSeconds),
              now >= session.startedAt - 60 else { return nil }
        session.seenAt = now
        return session
    }

    /// The token every console form carries: an HMAC of the session's id, so it is worthless without the cookie.
    public func consoleCSRFToken(_ session: ConsoleSession) -> String {
        Base64URL.encode(keys.console.mac(Array("csrf|\(session.id)".utf8)))
    }

    public func consoleCSRFTokenMatches(_ token: String?, session: ConsoleSession) -> Bool {
        guard let token else { return false }
        return Digest.constantTimeEqual(Array(token.utf8), Array(consoleCSRFToken(session).utf8))
    }

    /// Who acts when the console changes something: the operator, by name (`console:<name>` after the admin token,
    /// `operator:<account>` after an account's sign-in), from the browser's address.
    public func consoleCaller(_ session: ConsoleSession, ip: String?, userAgent: String?) -> CallerInfo {
        CallerInfo(dialect: .console, clientId: "console", ip: ip, userAgent: userAgent,
                   actor: (session.userId == nil ? "console:" : "operator:") + session.operatorName)
    }

    static func accountCredential(_ userId: String) -> [UInt8] { Array("account|\(userId)".utf8) }

    func consoleBinding(_ credential: [UInt8]) -> Data {
        Data(keys.console.mac(Array("session|".utf8) + credential))
    }
}

extension OperatorService {
    /// Each console sign-in is on the record, under the name the operator gave.
    public func auditConsoleSignIn(caller: CallerInfo) async throws {
        try await transaction { tx in try await self.audit(tx, "admin.console_signed_in", caller: caller) }
    }
}
