import Foundation
import LatchkeyTestSupport
import Testing
@testable import LatchkeyCore

/// What follows a first factor, as a table: the client's policy × the account's factors × what the client said it can
/// do × how the first factor passed → the journey's next state (or its refusal). On the injected clock.
@Suite struct JourneyAfterFirstFactorTests {
    enum Factor: String {
        case none, ownAddress, authenticator
    }
    enum First: String {
        case password, mailedCode
    }
    enum Next: String, Equatable {
        case tokens, mfaRequired, registrationRequired, redirect
    }

    struct Row: CustomTestStringConvertible, Sendable {
        var policy: MFAPolicy
        var factor: Factor
        var capabilities: String
        var first: First
        var next: Next
        var testDescription: String {
            "\(policy.rawValue) × \(factor.rawValue) × [\(capabilities)] × \(first.rawValue) → \(next.rawValue)"
        }
    }

    static let rows: [Row] = [
        // No policy: the first factor ends the journey, whatever the account holds.
        Row(policy: .off, factor: .authenticator, capabilities: "", first: .password, next: .tokens),
        // Optional: an account with a factor must pass it; the client must say it can.
        Row(policy: .optional, factor: .none, capabilities: "", first: .password, next: .tokens),
        Row(policy: .optional, factor: .authenticator, capabilities: "mfa_required", first: .password, next: .mfaRequired),
        Row(policy: .optional, factor: .authenticator, capabilities: "", first: .password, next: .redirect),
        Row(policy: .optional, factor: .ownAddress, capabilities: "mfa_required", first: .password, next: .mfaRequired),
        // The mailbox that was the first factor is no second one: nothing else is due.
        Row(policy: .optional, factor: .ownAddress, capabilities: "mfa_required", first: .mailedCode, next: .tokens),
        // Required: an account without a factor enrols one first (the client must say it can).
        Row(policy: .required, factor: .none, capabilities: "registration_required", first: .password, next: .registrationRequired),
        Row(policy: .required, factor: .none, capabilities: "", first: .password, next: .redirect),
        Row(policy: .required, factor: .authenticator, capabilities: "mfa_required registration_required", first: .mailedCode,
            next: .mfaRequired),
        // An account that holds a factor never enrols another on one first factor, even when the factor it holds cannot
        // follow this one (its own mailbox after a mailed code): the browser takes over.
        Row(policy: .required, factor: .ownAddress, capabilities: "mfa_required registration_required", first: .mailedCode,
            next: .redirect),
    ]

    static let client = "44444444-4444-4444-4444-444444444444"

    @Test(arguments: rows)
    func theNextStateFollowsTheTable(_ row: Row) async throws {
        let h = try await EngineHarness.make { settings in
            settings.clients.append(ClientApplication(id: Self.client, name: "table", mfa: row.policy))
        }
        let email = "table-\(UUID().uuidString.prefix(8).lowercased())@example.com"
        _ = try await h.signUp(email)
        let user = try #require(try await h.store.direct.users.find(email: email))
        switch row.factor {
        case .none: break
        case .ownAddress:
            try await h.store.direct.secondFactors.insert(SecondFactorRecord(id: UUID().uuidString, userId: user.id, kind: .email,
                                                                              target: email, createdAt: h.time.now()))
        case .authenticator:
            try await h.store.direct.secondFactors.insert(h.engine.factors.newTOTPFactor(userId: user.id, key: Array(repeating: 7, count: 20)))
        }
        let caller = CallerInfo(clientId: Self.client, ip: "127.0.0.1")
        let types = ChallengeTypes(stringLiteral: "oob password redirect " + row.capabilities)
        guard case .started(let started) = try await h.nativeAuthService.signInInitiate(username: email, challengeTypes: types, caller: caller)
        else { Issue.record("the sign-in did not start"); return }
        let outcome: SignInOutcome
        switch row.first {
        case .password:
            var passwordOnly = types
            passwordOnly.oob = false
            guard case .password(let token) = try await h.nativeAuthService.signInChallenge(continuationToken: started, challengeTypes: passwordOnly,
                                                                                 caller: caller)
            else { Issue.record("no password challenge"); return }
            outcome = try await h.nativeAuthService.signInWithPassword(continuationToken: token, username: nil, password: "a-strong-passphrase",
                                                            scope: nil, caller: caller)
        case .mailedCode:
            var codeOnly = types
            codeOnly.password = false
            guard case .code(_, let token) = try await h.nativeAuthService.signInChallenge(continuationToken: started, challengeTypes: codeOnly,
                                                                               caller: caller)
            else { Issue.record("no code challenge"); return }
            outcome = try await h.nativeAuthService.signInWithCode(continuationToken: token, code: await h.lastCode(to: email), scope: nil,
                                                        caller: caller)
        }
        let next: Next = switch outcome {
        case .tokens: .tokens
        case .mfaRequired: .mfaRequired
        case .registrationRequired: .registrationRequired
        case .redirect: .redirect
        case .signedIn: .tokens
        }
        #expect(next == row.next)
    }
}
