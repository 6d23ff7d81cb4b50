import Foundation

/// What a call brings to a journey, and where the journey waits for it: every step asks here before it does any work
/// (`FlowRecord.require`), so no step decides alone at which stages it may run. The transitions that follow are
/// `JourneyTransitions`'.
public enum JourneyStep: String, CaseIterable, Sendable {
    /// Asking for the first factor's challenge, or a new code.
    case challenge
    /// A sign-in's password.
    case password
    /// The code mailed for a sign-in, a sign-up or a reset.
    case code
    /// A sign-up's password, when the start did not bring it.
    case missingPassword
    /// A sign-up's required attributes.
    case attributes
    /// A reset's new password.
    case newPassword
    /// Listing the account's second factors to choose one.
    case chooseSecondFactor
    /// A second factor's challenge or proof (a factor's code sent, a passkey).
    case secondFactor
    /// Listing what may be enrolled.
    case chooseEnrolment
    /// The address or phone number to enrol, or a new code for it.
    case enrolmentChallenge
    /// The code that proves the factor being enrolled.
    case enrolmentCode
    /// An authenticator app's secret, offered to enrol.
    case authenticatorOffer
    /// The offered authenticator's first code.
    case authenticatorCode

    typealias Stage = FlowState.Stage
    private static let every: Set<FlowRecord.Kind> = [.signIn, .signUp, .passwordReset]

    /// The stages at which a flow of each kind waits for the step.
    private static let waits: [JourneyStep: [(kinds: Set<FlowRecord.Kind>, stages: Set<Stage>)]] = [
        .challenge: [([.signIn], [.started, .codeSent, .passwordChallenged]), ([.signUp], [.started, .codeSent, .passwordRequired]),
                     ([.passwordReset], [.started, .codeSent])],
        .password: [([.signIn], [.passwordChallenged])],
        .code: [(every, [.codeSent])],
        .missingPassword: [([.signUp], [.passwordRequired])],
        .attributes: [([.signUp], [.attributesRequired])],
        .newPassword: [([.passwordReset], [.codeVerified])],
        .chooseSecondFactor: [(every, [.mfaRequired])],
        .secondFactor: [(every, [.mfaRequired, .mfaChallenged])],
        .chooseEnrolment: [(every, [.registrationRequired])],
        .enrolmentChallenge: [(every, [.registrationRequired, .registrationChallenged, .registrationPreverified])],
        .enrolmentCode: [(every, [.registrationChallenged, .registrationPreverified])],
        .authenticatorOffer: [(every, [.registrationRequired, .registrationChallenged])],
        .authenticatorCode: [(every, [.registrationChallenged])],
    ]

    /// Whether a flow of `kind` at `stage` waits for this step.
    public func isAwaited(by kind: FlowRecord.Kind, at stage: FlowState.Stage) -> Bool {
        Self.waits[self]?.contains { $0.kinds.contains(kind) && $0.stages.contains(stage) } ?? false
    }

    /// The step in the words of a refusal.
    var words: String {
        switch self {
        case .challenge: "a challenge"
        case .password, .missingPassword: "a password"
        case .code: "a code"
        case .attributes: "attributes"
        case .newPassword: "a new password"
        case .chooseSecondFactor: "the choice of a second factor"
        case .secondFactor: "a second factor"
        case .chooseEnrolment, .enrolmentChallenge, .enrolmentCode: "enrolling a second factor"
        case .authenticatorOffer, .authenticatorCode: "enrolling an authenticator"
        }
    }
}

extension FlowRecord {
    /// Refuses a step the flow is not waiting for, in one wording whichever step and surface asked.
    func require(_ step: JourneyStep) throws {
        guard step.isAwaited(by: kind, at: state.stage) else {
            throw LatchkeyError.flowStepMismatch("this \(kind.rawValue.replacingOccurrences(of: "_", with: "-")) is not waiting for \(step.words)")
        }
    }
}
