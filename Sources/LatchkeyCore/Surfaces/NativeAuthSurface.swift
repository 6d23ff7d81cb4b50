import Foundation

/// The native authentication routes (MSAL's `nativeAuth` wire): sign-up, sign-in, reset, second factors and the
/// grants that end them, and the authenticator enrolment beside them.
///
/// A router holds `any NativeAuthSurface`, so the compiler keeps it to these use cases: what it may ask of the engine is this
/// list, and no other surface's.
public protocol NativeAuthSurface: ClientAuthenticating {
    func beginAuthenticatorEnrolment(accessToken: String, caller: CallerInfo) async throws -> AuthenticatorOffer
    func confirmAuthenticatorEnrolment(accessToken: String, continuationToken: String?, code: String?, caller: CallerInfo) async throws -> [String]
    func mfaChallenge(continuationToken: String?, methodId: String?, challengeTypes: ChallengeTypes?, caller: CallerInfo) async throws -> ChallengeResult
    func mfaIntrospect(continuationToken: String?, caller: CallerInfo) async throws -> (methods: [AuthMethod], continuationToken: String)
    func registrationChallenge(continuationToken: String?, challengeType: String?, target: String?, channel: String?, caller: CallerInfo) async throws -> RegistrationChallengeResult
    func registrationContinue(continuationToken: String?, grantType: String?, code: String?, caller: CallerInfo) async throws -> String
    func registrationIntrospect(continuationToken: String?, caller: CallerInfo) async throws -> (methods: [AuthMethod], continuationToken: String)
    func resetChallenge(continuationToken: String?, challengeTypes: ChallengeTypes?, caller: CallerInfo) async throws -> ChallengeResult
    func resetContinue(continuationToken: String?, code: String?, caller: CallerInfo) async throws -> (String, Int)
    func resetPoll(continuationToken: String?, caller: CallerInfo) async throws -> (PasswordResetPollStatus, String?)
    func resetStart(username: String?, challengeTypes: ChallengeTypes?, caller: CallerInfo) async throws -> SignInInitiateResult
    func resetSubmit(continuationToken: String?, newPassword: String?, caller: CallerInfo) async throws -> (String, Int)
    func signInChallenge(continuationToken: String?, challengeTypes: ChallengeTypes?, caller: CallerInfo) async throws -> ChallengeResult
    func signInInitiate(username: String?, challengeTypes: ChallengeTypes?, caller: CallerInfo) async throws -> SignInInitiateResult
    func signInWithCode(continuationToken: String?, code: String?, scope: String?, secondFactorOnly: Bool, caller: CallerInfo) async throws -> SignInOutcome
    func signInWithContinuationToken(continuationToken: String?, username: String?, scope: String?, caller: CallerInfo) async throws -> SignInOutcome
    func signInWithPassword(continuationToken: String?, username: String?, password: String?, scope: String?, caller: CallerInfo) async throws -> SignInOutcome
    func signUpChallenge(continuationToken: String?, challengeTypes: ChallengeTypes?, caller: CallerInfo) async throws -> ChallengeResult
    func signUpContinueWithAttributes(continuationToken: String?, attributes given: [String: JSONValue]?, caller: CallerInfo) async throws -> SignUpContinueResult
    func signUpContinueWithCode(continuationToken: String?, code: String?, caller: CallerInfo) async throws -> SignUpContinueResult
    func signUpContinueWithPassword(continuationToken: String?, password: String?, caller: CallerInfo) async throws -> SignUpContinueResult
    func signUpStart(username: String?, password: String?, attributes given: [String: JSONValue]?, challengeTypes: ChallengeTypes?, caller: CallerInfo) async throws -> SignUpStartResult
}


