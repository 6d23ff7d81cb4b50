import Foundation
import LatchkeyTestSupport
import Testing
@testable import LatchkeyCore

@Suite struct TOTPKnownAnswers {
    // RFC 6238 Appendix B, SHA-1 (the key is the ASCII of "12345678901234567890"), truncated to six digits.
    @Test func rfc6238Vectors() {
        let key = Array("12345678901234567890".utf8)
        let vectors: [(Int, String)] = [(59, "287082"), (1_111_111_109, "081804"), (1_111_111_111, "050471"),
                                         (1_234_567_890, "005924"), (2_000_000_000, "279037"), (20_000_000_000, "353130")]
        for (seconds, code) in vectors {
            #expect(TOTP.code(key: key, step: TOTP.step(at: Date(timeIntervalSince1970: Double(seconds)))) == code)
        }
    }

    @Test func driftWindowIsOneStepEachWay() {
        let key = Array("12345678901234567890".utf8), now = Date(timeIntervalSince1970: 1_111_111_111)
        let step = TOTP.step(at: now)
        #expect(TOTP.matchingStep(key: key, code: TOTP.code(key: key, step: step - 1), at: now) == step - 1)
        #expect(TOTP.matchingStep(key: key, code: TOTP.code(key: key, step: step + 1), at: now) == step + 1)
        #expect(TOTP.matchingStep(key: key, code: TOTP.code(key: key, step: step - 2), at: now) == nil)
        #expect(TOTP.matchingStep(key: key, code: "12345", at: now) == nil)
        #expect(TOTP.matchingStep(key: key, code: "１２３４５６", at: now) == nil)
    }

    @Test func base32RoundTripsAndRefusesOtherLetters() {
        let bytes: [UInt8] = Array(0...40)
        #expect(Base32.decode(Base32.encode(bytes)) == bytes)
        #expect(Base32.decode("GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ") == Array("12345678901234567890".utf8))
        #expect(Base32.decode("gezd gnbv gy3t qojq====") == Array("1234567890".utf8))
        #expect(Base32.decode("GEZ1") == nil)
    }

    @Test func provisioningURIEscapesItsLabel() {
        let uri = TOTP.provisioningURI(secret: "ABC", account: "a b@example.com", issuer: "Acme Co")
        #expect(uri == "otpauth://totp/Acme%20Co%3Aa%20b@example.com?secret=ABC&issuer=Acme%20Co&algorithm=SHA1&digits=6&period=30")
    }
}

@Suite struct SecondFactorEngineTests {
    static let strict = "22222222-2222-2222-2222-222222222222"
    static let types: ChallengeTypes = "oob password redirect mfa_required registration_required"

    func harness() async throws -> EngineHarness {
        try await EngineHarness.make { settings in
            settings.clients.append(ClientApplication(id: Self.strict, name: "strict", mfa: .required))
            settings.tokens.flowTTLSeconds = 3600
            settings.codes.ttlSeconds = 60
        }
    }

    /// A user with an email second factor, and the caller of the strict client.
    func enrolled(_ h: EngineHarness, _ email: String) async throws -> CallerInfo {
        _ = try await h.signUp(email)
        let caller = CallerInfo(clientId: Self.strict, ip: "127.0.0.1")
        let ct = try await passwordStep(h, email, caller)
        guard case .registrationRequired(let reg) = try await h.nativeAuthService.signInWithPassword(
            continuationToken: ct, username: nil, password: "a-strong-passphrase", scope: nil, caller: caller) else {
            Issue.record("expected registration_required"); return caller
        }
        let (_, ct2) = try await h.nativeAuthService.registrationIntrospect(continuationToken: reg, caller: caller)
        guard case .code(_, _, let ct3) = try await h.nativeAuthService.registrationChallenge(continuationToken: ct2, challengeType: "oob",
                                                                                  target: email, channel: "email", caller: caller) else {
            Issue.record("a password proves no mailbox: a code is expected"); return caller
        }
        let done = try await h.nativeAuthService.registrationContinue(continuationToken: ct3, grantType: "oob", code: await h.lastCode(to: email),
                                                           caller: caller)
        #expect(try await h.nativeAuthService.signInWithContinuationToken(continuationToken: done, username: nil, scope: nil, caller: caller).tokenSet != nil)
        return caller
    }

    func passwordStep(_ h: EngineHarness, _ email: String, _ caller: CallerInfo) async throws -> String {
        guard case .started(let ct) = try await h.nativeAuthService.signInInitiate(username: email, challengeTypes: Self.types, caller: caller),
              case .password(let ct2) = try await h.nativeAuthService.signInChallenge(continuationToken: ct, challengeTypes: Self.types, caller: caller)
        else { throw LatchkeyError.flowTokenInvalid }
        return ct2
    }

    @Test func aMailedSecondFactorCodeExpires() async throws {
        let h = try await harness()
        let caller = try await enrolled(h, "late@example.com")
        guard case .mfaRequired(let ct) = try await h.nativeAuthService.signInWithPassword(
            continuationToken: try await passwordStep(h, "late@example.com", caller), username: nil, password: "a-strong-passphrase",
            scope: nil, caller: caller) else { Issue.record("expected mfa_required"); return }
        let (methods, ct2) = try await h.nativeAuthService.mfaIntrospect(continuationToken: ct, caller: caller)
        guard case .code(_, let ct3) = try await h.nativeAuthService.mfaChallenge(continuationToken: ct2, methodId: methods[0].id,
                                                                       challengeTypes: Self.types, caller: caller) else {
            Issue.record("expected a code"); return
        }
        let code = await h.lastCode(to: "late@example.com")
        h.time.advance(seconds: 61)
        await #expect(throws: LatchkeyError.invalidCode(attemptsLeft: 0)) {
            _ = try await h.nativeAuthService.signInWithCode(continuationToken: ct3, code: code, scope: nil, secondFactorOnly: true, caller: caller)
        }
        // The flow itself outlives its code: a resend on the same token works, and its code signs in.
        guard case .code(_, let ct4) = try await h.nativeAuthService.mfaChallenge(continuationToken: ct3, methodId: methods[0].id,
                                                                       challengeTypes: Self.types, caller: caller) else { return }
        let fresh = await h.lastCode(to: "late@example.com")
        #expect(try await h.nativeAuthService.signInWithCode(continuationToken: ct4, code: fresh, scope: nil, secondFactorOnly: true,
                                                  caller: caller).tokenSet != nil)
    }

    @Test func theSecondFactorStepExpiresWithItsFlow() async throws {
        let h = try await harness()
        let caller = try await enrolled(h, "slow@example.com")
        guard case .mfaRequired(let ct) = try await h.nativeAuthService.signInWithPassword(
            continuationToken: try await passwordStep(h, "slow@example.com", caller), username: nil, password: "a-strong-passphrase",
            scope: nil, caller: caller) else { Issue.record("expected mfa_required"); return }
        h.time.advance(seconds: 3601)
        await #expect(throws: LatchkeyError.flowTokenExpired) { _ = try await h.nativeAuthService.mfaIntrospect(continuationToken: ct, caller: caller) }
    }

    @Test func anAuthenticatorStepAndARecoveryCodeWorkOnce() async throws {
        let h = try await harness()
        _ = try await h.signUp("totp@example.com")
        let user = try #require(try await h.store.direct.users.find(email: "totp@example.com"))
        let key = SecureRandom.bytes(20)
        let codes = try await h.engine.transaction { tx in
            try await tx.secondFactors.insert(h.engine.factors.newTOTPFactor(userId: user.id, key: key))
            return try await h.engine.factors.replaceRecoveryCodes(userId: user.id, in: tx)
        }
        #expect(codes.count == 10 && Set(codes).count == 10)
        let now = TOTP.code(key: key, step: TOTP.step(at: h.time.now()))
        try await h.engine.factors.checkAuthenticatorOrRecovery(now, for: user, caller: h.caller)
        await #expect(throws: LatchkeyError.secondFactorInvalid) { try await h.engine.factors.checkAuthenticatorOrRecovery(now, for: user, caller: h.caller) }
        // An earlier step than the last one accepted is a replay too, even inside the drift window.
        h.time.advance(seconds: 30)
        let previous = TOTP.code(key: key, step: TOTP.step(at: h.time.now()) - 1)
        if previous != now {
            await #expect(throws: LatchkeyError.secondFactorInvalid) { try await h.engine.factors.checkAuthenticatorOrRecovery(previous, for: user, caller: h.caller) }
        }
        try await h.engine.factors.checkAuthenticatorOrRecovery(TOTP.code(key: key, step: TOTP.step(at: h.time.now())), for: user, caller: h.caller)
        try await h.engine.factors.checkAuthenticatorOrRecovery(codes[0].uppercased(), for: user, caller: h.caller)
        await #expect(throws: LatchkeyError.secondFactorInvalid) { try await h.engine.factors.checkAuthenticatorOrRecovery(codes[0], for: user, caller: h.caller) }
        let factors = try await h.store.direct.secondFactors.secondFactors(userId: user.id)
        #expect(factors.filter { $0.kind == .recovery }.count == 9)
        // The seed is sealed: the stored bytes are not the key.
        let sealed = try #require(factors.first { $0.kind == .totp }?.secret)
        #expect([UInt8](sealed) != key && h.engine.keys.secondFactor.open([UInt8](sealed)) == key)
        let events = try await h.store.direct.audit.events(since: .distantPast, limit: 200).map(\.kind)
        #expect(events.contains("mfa_recovery_code_used") && events.filter { $0 == "mfa_failed" }.count >= 2)
    }
}
