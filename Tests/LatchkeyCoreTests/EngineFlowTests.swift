import Foundation
import LatchkeyTestSupport
import Testing
@testable import LatchkeyCore
import LatchkeySQLite

@Suite struct CodeLifetimeTests {
    @Test func codeExpiresAfterThirtyMinutesWithoutSleeping() async throws {
        let h = try await EngineHarness.make()
        let caller = h.caller
        guard case .started(let ct) = try await h.nativeAuthService.signUpStart(username: "a@example.com", password: "a-strong-passphrase",
                                                                     attributes: nil, challengeTypes: "oob password redirect", caller: caller),
              case .code(let challenge, let ct2) = try await h.nativeAuthService.signUpChallenge(continuationToken: ct, challengeTypes: "oob redirect", caller: caller)
        else { Issue.record("unexpected start"); return }
        #expect(challenge.codeLength == 8)
        let code = await h.lastCode(to: "a@example.com")
        h.time.advance(seconds: 1801)
        await #expect(throws: LatchkeyError.flowTokenExpired) {
            _ = try await h.nativeAuthService.signUpContinueWithCode(continuationToken: ct2, code: code, caller: caller)
        }
    }

    @Test func expiredCodeIsRefusedWhileTheFlowLives() async throws {
        let h = try await EngineHarness.make { $0.codes.ttlSeconds = 60 }
        let caller = h.caller
        guard case .started(let ct) = try await h.nativeAuthService.signUpStart(username: "b@example.com", password: "a-strong-passphrase",
                                                                     attributes: nil, challengeTypes: "oob password redirect", caller: caller),
              case .code(_, let ct2) = try await h.nativeAuthService.signUpChallenge(continuationToken: ct, challengeTypes: "oob redirect", caller: caller)
        else { Issue.record("unexpected start"); return }
        let code = await h.lastCode(to: "b@example.com")
        h.time.advance(seconds: 61)
        await #expect(throws: LatchkeyError.invalidCode(attemptsLeft: 0)) {
            _ = try await h.nativeAuthService.signUpContinueWithCode(continuationToken: ct2, code: code, caller: caller)
        }
    }

    @Test func fifthWrongGuessKillsTheCode() async throws {
        let h = try await EngineHarness.make()
        let caller = h.caller
        guard case .started(let ct) = try await h.nativeAuthService.signUpStart(username: "c@example.com", password: "a-strong-passphrase",
                                                                     attributes: nil, challengeTypes: "oob password redirect", caller: caller),
              case .code(_, let ct2) = try await h.nativeAuthService.signUpChallenge(continuationToken: ct, challengeTypes: "oob redirect", caller: caller)
        else { Issue.record("unexpected start"); return }
        let code = await h.lastCode(to: "c@example.com")!
        let wrong = code == "00000000" ? "11111111" : "00000000"
        for left in stride(from: 4, through: 0, by: -1) {
            await #expect(throws: LatchkeyError.invalidCode(attemptsLeft: left)) {
                _ = try await h.nativeAuthService.signUpContinueWithCode(continuationToken: ct2, code: wrong, caller: caller)
            }
        }
        await #expect(throws: LatchkeyError.invalidCode(attemptsLeft: 0)) {
            _ = try await h.nativeAuthService.signUpContinueWithCode(continuationToken: ct2, code: code, caller: caller)
        }
        // A resend issues a fresh code that works.
        guard case .code(_, let ct3) = try await h.nativeAuthService.signUpChallenge(continuationToken: ct2, challengeTypes: "oob redirect", caller: caller)
        else { Issue.record("no resend"); return }
        let fresh = await h.lastCode(to: "c@example.com")
        let result = try await h.nativeAuthService.signUpContinueWithCode(continuationToken: ct3, code: fresh, caller: caller)
        guard case .completed = result else { Issue.record("expected completion, got \(result)"); return }
    }
}

@Suite struct RefreshTokenTests {
    @Test func rotationGraceAndFamilyRevocation() async throws {
        let h = try await EngineHarness.make()
        let done = try await h.signUp("r@example.com")
        let first = try await h.nativeAuthService.signInWithContinuationToken(continuationToken: done, username: "r@example.com",
                                                                   scope: "openid offline_access", caller: h.caller)
        let rt1 = try #require(first.refreshToken)
        let second = try await h.engine.tokens.refresh(refreshToken: rt1, scope: nil, caller: h.caller)
        let rt2 = try #require(second.refreshToken)
        #expect(rt2 != rt1)
        // A client retrying the same request within the grace window gets the same child back.
        h.time.advance(seconds: 2)
        #expect(try await h.engine.tokens.refresh(refreshToken: rt1, scope: nil, caller: h.caller).refreshToken == rt2)
        // Past the window, the old token is theft: the whole family dies, rt2 included.
        h.time.advance(seconds: 10)
        await #expect(throws: LatchkeyError.refreshTokenInvalid) {
            _ = try await h.engine.tokens.refresh(refreshToken: rt1, scope: nil, caller: h.caller)
        }
        await #expect(throws: LatchkeyError.refreshTokenInvalid) {
            _ = try await h.engine.tokens.refresh(refreshToken: rt2, scope: nil, caller: h.caller)
        }
        let events = try await h.store.direct.audit.events(since: .distantPast, limit: 100)
        #expect(events.contains { $0.kind == "refresh_token_reuse" })
    }

    /// A copied token used inside the grace window after its child was used is reuse, not a retry: the family ends,
    /// audited, instead of the copy taking the chain over.
    @Test func aParentUsedAfterItsChildIsReuseEvenInsideTheWindow() async throws {
        let h = try await EngineHarness.make()
        let done = try await h.signUp("t@example.com")
        let first = try await h.nativeAuthService.signInWithContinuationToken(continuationToken: done, username: nil, scope: nil, caller: h.caller)
        let rt1 = try #require(first.refreshToken)
        let rt2 = try #require(try await h.engine.tokens.refresh(refreshToken: rt1, scope: nil, caller: h.caller).refreshToken)
        let rt3 = try #require(try await h.engine.tokens.refresh(refreshToken: rt2, scope: nil, caller: h.caller).refreshToken)
        h.time.advance(seconds: 1)
        await #expect(throws: LatchkeyError.refreshTokenInvalid) { _ = try await h.engine.tokens.refresh(refreshToken: rt1, scope: nil, caller: h.caller) }
        await #expect(throws: LatchkeyError.refreshTokenInvalid) { _ = try await h.engine.tokens.refresh(refreshToken: rt3, scope: nil, caller: h.caller) }
        let events = try await h.store.direct.audit.events(since: .distantPast, limit: 100)
        #expect(events.filter { $0.kind == "refresh_token_reuse" }.count == 1)
    }

    @Test func refreshTokensExpire() async throws {
        let h = try await EngineHarness.make { $0.tokens.refreshTTLSeconds = 3600 }
        let done = try await h.signUp("e@example.com")
        let tokens = try await h.nativeAuthService.signInWithContinuationToken(continuationToken: done, username: nil, scope: nil, caller: h.caller)
        h.time.advance(seconds: 3601)
        await #expect(throws: LatchkeyError.refreshTokenInvalid) {
            _ = try await h.engine.tokens.refresh(refreshToken: tokens.refreshToken, scope: nil, caller: h.caller)
        }
    }

    @Test func accessTokenExpiresForUserInfo() async throws {
        let h = try await EngineHarness.make()
        let done = try await h.signUp("u@example.com")
        let tokens = try await h.nativeAuthService.signInWithContinuationToken(continuationToken: done, username: nil, scope: nil, caller: h.caller)
        #expect(try await h.engine.tokens.userForAccessToken(tokens.accessToken, audience: .nativeClients).email == "u@example.com")
        await #expect(throws: LatchkeyError.accessTokenInvalid) { _ = try await h.engine.tokens.userForAccessToken(tokens.idToken!, audience: .nativeClients) }
        h.time.advance(seconds: 3601)
        await #expect(throws: LatchkeyError.accessTokenInvalid) { _ = try await h.engine.tokens.userForAccessToken(tokens.accessToken, audience: .nativeClients) }
    }
}

@Suite struct SignUpRulesTests {
    @Test func racingSignUpsForOneEmailMakeOneUser() async throws {
        let h = try await EngineHarness.make()
        let caller = h.caller
        // Two flows for the same address, both verified, completing at the same time.
        var pending: [(String, String)] = []
        for _ in 0..<2 {
            guard case .started(let ct) = try await h.nativeAuthService.signUpStart(username: "race@example.com", password: "a-strong-passphrase",
                                                                         attributes: nil, challengeTypes: "oob password redirect", caller: caller),
                  case .code(_, let ct2) = try await h.nativeAuthService.signUpChallenge(continuationToken: ct, challengeTypes: "oob redirect", caller: caller)
            else { Issue.record("start failed"); return }
            pending.append((ct2, await h.lastCode(to: "race@example.com")!))
        }
        let outcomes = await withTaskGroup(of: Bool.self) { group in
            for (ct, code) in pending {
                group.addTask {
                    do { _ = try await h.nativeAuthService.signUpContinueWithCode(continuationToken: ct, code: code, caller: caller); return true }
                    catch { return false }
                }
            }
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(outcomes.filter { $0 }.count == 1)
        let user = try await h.store.direct.users.find(email: "race@example.com")
        #expect(user != nil)
    }

    @Test func emailsMatchCaseInsensitively() async throws {
        let h = try await EngineHarness.make()
        _ = try await h.signUp("Mixed.Case@Example.COM")
        await #expect(throws: LatchkeyError.emailTaken) {
            _ = try await h.nativeAuthService.signUpStart(username: "mixed.case@example.com", password: nil, attributes: nil,
                                               challengeTypes: "oob redirect", caller: h.caller)
        }
    }

    @Test func passwordPolicy() async throws {
        let h = try await EngineHarness.make()
        #expect(h.engine.accounts.passwordProblem("short", identifiers: ["a@b.co"]) == .tooShort)
        #expect(h.engine.accounts.passwordProblem(String(repeating: "x", count: 257), identifiers: ["a@b.co"]) == .tooLong)
        #expect(h.engine.accounts.passwordProblem("alice@example.com", identifiers: ["alice@example.com"]) == .banned)
        #expect(h.engine.accounts.passwordProblem("alicealice", identifiers: ["alicealice@example.com"]) == .banned)
        #expect(h.engine.accounts.passwordProblem("password123", identifiers: ["a@b.co"]) == .banned)
        #expect(h.engine.accounts.passwordProblem("aaaaaaaaaa", identifiers: ["a@b.co"]) == .tooWeak)
        #expect(h.engine.accounts.passwordProblem("correct horse battery", identifiers: ["a@b.co"]) == nil)
    }

    @Test func attributesAreCheckedAgainstTheSchema() async throws {
        let h = try await EngineHarness.make(attributes: [
            AttributeDefinition(name: "postalCode", kind: .string, required: true, regex: "^[1-9][0-9]*$"),
            AttributeDefinition(name: "newsletter", kind: .boolean),
        ])
        #expect(try h.engine.accounts.validateAttributes(["postalCode": .int(123), "other": "ignored"]) == ["postalCode": "123"])
        #expect(throws: LatchkeyError.invalidAttributes(["postalCode", "newsletter"])) {
            _ = try h.engine.accounts.validateAttributes(["postalCode": "0123", "newsletter": "maybe"])
        }
        #expect(h.engine.accounts.missingRequiredAttributes([:]).map(\.name) == ["postalCode"])
    }

    @Test func signingKeyAndServerKeySurviveRestart() async throws {
        let h = try await EngineHarness.make()
        let again = try await LatchkeyEngine.start(store: h.store, settings: h.engine.settings, mailComposer: h.engine.mailComposer,
                                                   time: h.time, logger: .init(label: "t"))
        #expect(again.signingKeys.map(\.kid) == h.engine.signingKeys.map(\.kid))
        #expect(again.tenantId == h.engine.tenantId)
        #expect(again.secretHash("x") == h.engine.secretHash("x"))
    }
}
