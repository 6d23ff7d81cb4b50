import Foundation

/// Test mode's API for app teams' integration tests (`/testing/v1/`): the clock moved forward, the data wiped between
/// tests, accounts made directly in the state a test needs. Only built when the server runs in test mode.
public struct TestingService: TestingSurface, EngineKernel {
    public let engine: LatchkeyEngine
    public let clock: AdjustableTime

    public init(engine: LatchkeyEngine, clock: AdjustableTime) { self.engine = engine; self.clock = clock }

    /// Who acts, in the audit: the tests.
    static var caller: CallerInfo { CallerInfo(dialect: .admin, clientId: nil, actor: "testing") }

    // MARK: The clock

    public var clockOffsetSeconds: Double { clock.offsetSeconds }
    public func now() -> Date { clock.now() }
    public func advanceClock(seconds: Double) { clock.advance(seconds: seconds) }
    public func resetClock() { clock.reset() }

    // MARK: The data

    /// Every account and what it holds, sessions, flows, codes, mail and audit events gone (`keepAccounts`: only the
    /// sessions and flows); configuration, keys and the clock stay.
    public func wipe(keepAccounts: Bool) async throws {
        try await engine.standaloneWrite { try await $0.maintenance.wipe(keepAccounts: keepAccounts) }
    }

    // MARK: Accounts

    /// Makes the accounts in one transaction (all or none); passwords are hashed first, outside it.
    public func createUsers(_ specs: [TestAccount]) async throws -> [UserRecord] {
        var hashes: [String?] = []
        for spec in specs { hashes.append(try await spec.password.asyncMap { try await engine.passwords.hash($0) }) }
        let prepared = try specs.map { try prepare($0) }, hashed = hashes
        return try await transaction { tx in
            var made: [UserRecord] = []
            for (index, (spec, email, username)) in prepared.enumerated() {
                let account = NewAccount(email: email, username: username, passwordHash: hashed[index],
                                         attributes: try self.engine.accounts.validateAttributes(spec.attributes),
                                         emailVerified: spec.emailVerified, status: .active)
                let user = try await self.engine.accounts.createAccount(account, detail: "made by the testing API", caller: Self.caller, in: tx)
                let now = self.time.now()
                for identity in spec.identities {
                    try await tx.identities.link(IdentityRecord(provider: identity.provider, subject: identity.subject, userId: user.id, createdAt: now))
                }
                if let key = spec.authenticatorSecret.flatMap(Base32.decode) {
                    try await tx.secondFactors.insert(self.engine.factors.newTOTPFactor(userId: user.id, key: key))
                }
                for target in spec.emailFactors {
                    try await tx.secondFactors.insert(SecondFactorRecord(id: SecureRandom.uuidString(), userId: user.id, kind: .email,
                                                                         target: try self.engine.accounts.requireEmail(target), createdAt: now))
                }
                for role in spec.roles { _ = try await tx.users.grant(UserRole(userId: user.id, role: role, grantedAt: now)) }
                made.append(user)
            }
            return made
        }
    }

    private func prepare(_ spec: TestAccount) throws -> (TestAccount, String?, String?) {
        let email = try spec.email.map { try engine.accounts.requireEmail($0) }
        let username = try spec.username.map { try engine.accounts.requireUsername($0) }
        guard email != nil || username != nil else { throw TestingRefusal.badField("email or username is required") }
        if let secret = spec.authenticatorSecret, (Base32.decode(secret)?.count ?? 0) < 10 {
            throw TestingRefusal.badField("second_factors: the totp secret is not Base32 of 10 bytes or more")
        }
        if let role = spec.roles.first(where: { !UserRole.known.contains($0) }) {
            throw TestingRefusal.badField("roles: \(role) is not one of \(UserRole.known.joined(separator: ", "))")
        }
        return (spec, email, username)
    }

    /// Puts an account in a state a test needs.
    public func setState(_ key: String, _ state: TestAccountState) async throws -> UserRecord {
        let operators = OperatorService(engine: engine)
        switch state {
        case .locked:
            let user = try await operators.adminFindUser(key)
            try await engine.standaloneWrite { try await $0.users.lock(userId: user.id, until: self.time.now() + 3600) }
            return try await operators.adminFindUser(key)
        case .unlocked: return try await operators.adminUnlock(key, caller: Self.caller)
        case .disabled: return try await operators.adminSetDisabled(key, disabled: true, caller: Self.caller)
        case .enabled: return try await operators.adminSetDisabled(key, disabled: false, caller: Self.caller)
        case .verified: return try await operators.adminVerifyEmail(key, caller: Self.caller)
        }
    }
}

/// An account as a test asks for it (`POST /testing/v1/users`).
public struct TestAccount: Sendable {
    public var email: String?
    public var emailVerified: Bool
    public var username: String?
    public var password: String?
    public var attributes: [String: JSONValue]
    public var identities: [(provider: String, subject: String)]
    /// An authenticator the test holds the secret of (Base32), so it can compute codes.
    public var authenticatorSecret: String?
    public var emailFactors: [String]
    public var roles: [String]

    public init(email: String?, emailVerified: Bool = true, username: String? = nil, password: String? = nil,
                attributes: [String: JSONValue] = [:], identities: [(provider: String, subject: String)] = [],
                authenticatorSecret: String? = nil, emailFactors: [String] = [], roles: [String] = []) {
        self.email = email; self.emailVerified = emailVerified; self.username = username; self.password = password
        self.attributes = attributes; self.identities = identities; self.authenticatorSecret = authenticatorSecret
        self.emailFactors = emailFactors; self.roles = roles
    }
}

/// The states `POST /testing/v1/users/{user}/{state}` puts an account in.
public enum TestAccountState: String, Sendable, CaseIterable {
    case locked = "lock", unlocked = "unlock", disabled = "disable", enabled = "enable", verified = "verify"
}

public enum TestingRefusal: ServiceRefusal, Sendable, Equatable {
    case badField(String)

    public var errorClass: ErrorClass { .invalid }
}
