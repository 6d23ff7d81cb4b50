import Foundation
import LatchkeyTestSupport
import Testing
@testable import LatchkeyCore

/// The one write a login makes (its session with what the sign-in records) and the joined reads a sign-in starts
/// with, on every `StoreUnderTest`: all of it lands, or none of it.
@Suite struct SignInWriteContractTests {
    static func note(_ user: UserRecord, kind: String = "sign_in", signIn: Bool = true, at offset: Double = 90) -> SessionNote {
        SessionNote(event: AuditEvent(id: nil, at: Fixtures.now + offset, kind: kind, userId: user.id, email: user.email, clientIp: "192.0.2.7",
                                      userAgent: "contract", detail: "passkey Work laptop", dialect: "app_services"),
                    signIn: signIn)
    }

    static func events(_ store: any Store, userId: String) async throws -> [AuditEvent] {
        try await store.direct.audit.events(AuditQuery(since: .distantPast, userId: userId, limit: 100))
    }

    @Test(arguments: StoreUnderTest.allCases)
    func aSessionAndItsSignInLandTogether(_ kind: StoreUnderTest) async throws {
        let store = try await kind.make()
        let user = Fixtures.user(email: "login@example.com")
        try await store.direct.users.insert(user)
        _ = try await store.direct.users.takePasswordAttempt(userId: user.id, now: Fixtures.now)
        try await store.direct.users.lock(userId: user.id, until: Fixtures.now + 600)

        let session = Fixtures.session(userId: user.id)
        try await store.direct.sessions.insert(session, noting: Self.note(user))
        let (found, account) = try #require(try await store.direct.sessions.findWithUser(tokenHash: session.tokenHash))
        #expect(found.id == session.id && account.id == user.id)
        #expect(account.lastLoginAt.map { abs($0.timeIntervalSince(Fixtures.now + 90)) < 0.001 } == true)
        #expect(account.failedLoginCount == 0 && account.lockedUntil == nil)
        let events = try await Self.events(store, userId: user.id)
        #expect(events.map(\.kind) == ["sign_in"] && events.first?.clientIp == "192.0.2.7" && events.first?.detail == "passkey Work laptop")

        // A note that is no sign-in (a code's exchange) leaves the account as it is.
        try await store.direct.sessions.insert(Fixtures.session(userId: user.id), noting: Self.note(user, kind: "token_issued", signIn: false, at: 300))
        #expect(try await store.direct.users.find(id: user.id)?.lastLoginAt.map { abs($0.timeIntervalSince(Fixtures.now + 90)) < 0.001 } == true)
        #expect(try await Self.events(store, userId: user.id).map(\.kind) == ["sign_in", "token_issued"])

        // The note alone, for a sign-in that opens no session of its own.
        try await store.direct.sessions.record(Self.note(user, at: 600))
        #expect(try await store.direct.users.find(id: user.id)?.lastLoginAt.map { abs($0.timeIntervalSince(Fixtures.now + 600)) < 0.001 } == true)
        #expect(try await Self.events(store, userId: user.id).count == 3)
    }

    @Test(arguments: StoreUnderTest.allCases)
    func aSessionThatCannotBeStoredTakesItsSignInWithIt(_ kind: StoreUnderTest) async throws {
        let store = try await kind.make()
        let user = Fixtures.user(email: "twice@example.com")
        try await store.direct.users.insert(user)
        let session = Fixtures.session(userId: user.id)
        try await store.direct.sessions.insert(session)
        var again = Fixtures.session(userId: user.id)
        again.tokenHash = session.tokenHash  // the token hash is unique
        await #expect(throws: (any Error).self) { try await store.direct.sessions.insert(again, noting: Self.note(user)) }
        #expect(try await store.direct.users.find(id: user.id)?.lastLoginAt == nil)
        #expect(try await Self.events(store, userId: user.id).isEmpty)
        #expect(try await store.direct.sessions.find(id: again.id) == nil)
    }

    /// Logins of one account racing transactions that touch the account and then audit (a password sign-in, a first
    /// sign-in through an identity): every one of them lands. On PostgreSQL a login's statement that took the audit
    /// count's row before the account's deadlocked against them.
    @Test(arguments: StoreUnderTest.allCases)
    func loginsRacingSignInTransactionsAllLand(_ kind: StoreUnderTest) async throws {
        let store = try await kind.make()
        let user = Fixtures.user(email: "racing.logins@example.com")
        try await store.direct.users.insert(user)
        for round in 0..<4 {
            let results = await Fixtures.race(12) { i in
                if i % 2 == 0 {
                    try await store.direct.sessions.insert(Fixtures.session(userId: user.id), noting: Self.note(user, at: Double(round)))
                } else {
                    try await store.transaction { tx in
                        guard var current = try await tx.users.find(id: user.id) else { return }
                        current.lastLoginAt = Fixtures.now + Double(round)
                        try await tx.users.update(current)
                        try await tx.audit.append(Self.note(user, at: Double(round)).event)
                    }
                }
            }
            for case .failure(let error) in results { Issue.record("round \(round): \(error)") }
        }
        #expect(try await Self.events(store, userId: user.id).count == 48)
    }

    @Test(arguments: StoreUnderTest.allCases)
    func aPasskeysUseAndItsSignInLandTogether(_ kind: StoreUnderTest) async throws {
        let store = try await kind.make()
        let user = Fixtures.user(email: "pk.login@example.com")
        try await store.direct.users.insert(user)
        let passkey = PasskeyContractTests.passkey(user.id)
        try await store.direct.passkeys.insert(passkey)
        let challenge = PasskeyChallengeRecord(challengeHash: Data(SecureRandom.bytes(32)), purpose: .authentication, userId: nil,
                                               visitHash: Data(SecureRandom.bytes(32)), expiresAt: Fixtures.now + 300)
        try await store.direct.passkeys.saveChallenge(challenge)
        // Read with the passkey and its account (one read), left in place; gone once expired.
        let read = try await store.direct.passkeys.challengeAndPasskey(hash: challenge.challengeHash, now: Fixtures.now, credentialId: passkey.credentialId)
        #expect(read.challenge == challenge && read.passkey?.passkey == passkey && read.passkey?.user.email == user.email)
        let late = try await store.direct.passkeys.challengeAndPasskey(hash: challenge.challengeHash, now: Fixtures.now + 301, credentialId: passkey.credentialId)
        #expect(late.challenge == nil && late.passkey?.passkey == passkey)
        let unknown = try await store.direct.passkeys.challengeAndPasskey(hash: challenge.challengeHash, now: Fixtures.now,
                                                                          credentialId: Data(SecureRandom.bytes(16)))
        #expect(unknown.challenge == challenge && unknown.passkey == nil)
        // The challenge's use, the passkey's, the sign-in's record, the browser session it opens and its code, together.
        func browser() -> BrowserSessionRecord {
            BrowserSessionRecord(id: SecureRandom.uuidString(), userId: user.id, tokenHash: Data(SecureRandom.bytes(32)), amr: "hwk user",
                                 authTime: Fixtures.now + 90, expiresAt: Fixtures.now + 3600, ip: "192.0.2.7", userAgent: "contract")
        }
        func code(_ session: BrowserSessionRecord) -> AuthorizationCodeRecord {
            AuthorizationCodeRecord(codeHash: Data(SecureRandom.bytes(32)), clientId: "web", userId: user.id, redirectUri: "https://app/cb",
                                    codeChallenge: "x", nonce: nil, scope: "openid", amr: session.amr, authTime: session.authTime,
                                    familyId: SecureRandom.uuidString(), browserSessionId: session.id, expiresAt: Fixtures.now + 150)
        }
        var note = Self.note(user)
        note.browserSession = browser()
        note.authorizationCode = code(note.browserSession!)
        #expect(try await store.direct.passkeys.recordUse(id: passkey.id, signCount: 9, backedUp: true, at: Fixtures.now + 90, noting: note,
                                                          takingChallenge: challenge.challengeHash))
        let (used, account) = try #require(try await store.direct.passkeys.passkeyWithUser(credentialId: passkey.credentialId))
        #expect(account.id == user.id && account.email == user.email)
        #expect(try await store.direct.passkeys.passkeyWithUser(credentialId: Data(SecureRandom.bytes(16))) == nil)
        #expect(used.signCount == 9 && used.backedUp && used.lastUsedAt.map { abs($0.timeIntervalSince(Fixtures.now + 90)) < 0.001 } == true)
        #expect(try await store.direct.users.find(id: user.id)?.lastLoginAt.map { abs($0.timeIntervalSince(Fixtures.now + 90)) < 0.001 } == true)
        #expect(try await Self.events(store, userId: user.id).map(\.kind) == ["sign_in"])
        #expect(try await store.direct.openID.browserSession(tokenHash: note.browserSession!.tokenHash) == note.browserSession)
        #expect(try await store.direct.openID.authorizationCode(codeHash: note.authorizationCode!.codeHash) == note.authorizationCode)
        #expect(try await store.direct.passkeys.challengeAndPasskey(hash: challenge.challengeHash, now: Fixtures.now,
                                                                    credentialId: passkey.credentialId).challenge == nil)

        // Its challenge used already: nothing at all is written.
        var again = Self.note(user, at: 200)
        again.browserSession = browser()
        again.authorizationCode = code(again.browserSession!)
        #expect(try await !store.direct.passkeys.recordUse(id: passkey.id, signCount: 12, backedUp: true, at: Fixtures.now + 200, noting: again,
                                                           takingChallenge: challenge.challengeHash))
        #expect(try await store.direct.passkeys.passkey(credentialId: passkey.credentialId)?.signCount == 9)
        #expect(try await store.direct.users.find(id: user.id)?.lastLoginAt.map { abs($0.timeIntervalSince(Fixtures.now + 90)) < 0.001 } == true)
        #expect(try await Self.events(store, userId: user.id).count == 1)
        #expect(try await store.direct.openID.browserSession(tokenHash: again.browserSession!.tokenHash) == nil)
        #expect(try await store.direct.openID.authorizationCode(codeHash: again.authorizationCode!.codeHash) == nil)
    }

    @Test(arguments: StoreUnderTest.allCases)
    func anIdentityComesWithItsAccount(_ kind: StoreUnderTest) async throws {
        let store = try await kind.make()
        let user = Fixtures.user(email: nil, username: "joined")
        try await store.direct.users.insert(user)
        let identity = IdentityRecord(provider: "google", subject: "sub-9", userId: user.id, createdAt: Fixtures.now, verifiedEmail: "j@example.com")
        try await store.direct.identities.link(identity)
        let (found, account) = try #require(try await store.direct.identities.identityWithUser(provider: "google", subject: "sub-9"))
        #expect(found == identity && account.id == user.id && account.username == "joined")
        #expect(try await store.direct.identities.identityWithUser(provider: "google", subject: "sub-8") == nil)
        #expect(try await store.direct.identities.identityWithUser(provider: "apple", subject: "sub-9") == nil)
    }
}
