import Foundation

/// What can happen to a journey: each step a surface takes, named once. Where a step's outcome decides what comes
/// next (a sign-up still missing its password, a second factor due), the outcome is the event.
public enum JourneyEvent: String, CaseIterable, Sendable {
    /// The client and the account take a password: the sign-in asks for it.
    case passwordChosen
    /// A code went to the mailbox the journey is about.
    case codeSent
    /// Reset: the mailed code was right.
    case codeVerified
    /// Sign-up: the password is still to come.
    case passwordMissing
    /// Sign-up: required attributes are still to come.
    case attributesMissing
    /// Sign-up: everything is given and the account exists.
    case accountCreated
    /// Reset: the new password is stored.
    case passwordSet
    /// After the first factor: the account holds a second factor the client's policy asks for.
    case secondFactorDue
    /// After the first factor: the client requires a second factor the account does not hold yet.
    case enrolmentDue
    /// A code went to the chosen second factor.
    case secondFactorCodeSent
    /// A code went to the factor being enrolled, or an authenticator's secret was offered.
    case enrolmentCodeSent
    /// The address being enrolled is the mailbox the first factor already proved.
    case enrolmentPreverified
    /// The new factor's code was right.
    case enrolmentVerified
}

/// The journey's states as one table: for a kind of flow at a stage, the stage each event leads to. An event the
/// table does not list for that stage is refused (`flowStepMismatch`), whichever surface sent it.
public enum JourneyTransitions {
    typealias Stage = FlowState.Stage
    private struct Row { var kinds: Set<FlowRecord.Kind>; var from: Set<Stage>; var to: Stage }
    private static let every: Set<FlowRecord.Kind> = [.signIn, .signUp, .passwordReset]
    /// The first factor is passed at these stages: a sign-in's own steps, or a finished sign-up or reset that goes
    /// on to sign in with its continuation token.
    private static let firstFactorPassed: [Row] = [
        Row(kinds: [.signIn], from: [.started, .codeSent, .passwordChallenged], to: .started),
        Row(kinds: [.signUp, .passwordReset], from: [.completed], to: .completed),
    ]

    private static let table: [JourneyEvent: [Row]] = [
        .passwordChosen: [Row(kinds: [.signIn], from: [.started, .codeSent, .passwordChallenged], to: .passwordChallenged)],
        .codeSent: [Row(kinds: [.signIn], from: [.started, .codeSent, .passwordChallenged], to: .codeSent),
                    Row(kinds: [.signUp, .passwordReset], from: [.started, .codeSent], to: .codeSent)],
        .codeVerified: [Row(kinds: [.passwordReset], from: [.codeSent], to: .codeVerified)],
        .passwordMissing: [Row(kinds: [.signUp], from: [.codeSent, .passwordRequired, .attributesRequired], to: .passwordRequired)],
        .attributesMissing: [Row(kinds: [.signUp], from: [.codeSent, .passwordRequired, .attributesRequired], to: .attributesRequired)],
        .accountCreated: [Row(kinds: [.signUp], from: [.codeSent, .passwordRequired, .attributesRequired], to: .completed)],
        .passwordSet: [Row(kinds: [.passwordReset], from: [.codeVerified], to: .completed)],
        .secondFactorDue: firstFactorPassed.map { Row(kinds: $0.kinds, from: $0.from, to: .mfaRequired) },
        .enrolmentDue: firstFactorPassed.map { Row(kinds: $0.kinds, from: $0.from, to: .registrationRequired) },
        .secondFactorCodeSent: [Row(kinds: every, from: [.mfaRequired, .mfaChallenged], to: .mfaChallenged)],
        .enrolmentCodeSent: [Row(kinds: every, from: [.registrationRequired, .registrationChallenged, .registrationPreverified],
                                 to: .registrationChallenged)],
        .enrolmentPreverified: [Row(kinds: every, from: [.registrationRequired, .registrationChallenged, .registrationPreverified],
                                    to: .registrationPreverified)],
        .enrolmentVerified: [Row(kinds: every, from: [.registrationChallenged, .registrationPreverified], to: .registrationVerified)],
    ]

    /// The stage `event` leads to from `stage` in a flow of `kind`, or nil when the journey refuses it there.
    public static func next(_ kind: FlowRecord.Kind, from stage: FlowState.Stage, on event: JourneyEvent) -> FlowState.Stage? {
        table[event]?.first { $0.kinds.contains(kind) && $0.from.contains(stage) }?.to
    }
}

extension FlowRecord {
    /// Moves the flow on by `event`, as the table allows, or refuses the step.
    mutating func take(_ event: JourneyEvent) throws {
        guard let next = JourneyTransitions.next(kind, from: state.stage, on: event) else {
            throw LatchkeyError.flowStepMismatch("this \(kind.rawValue.replacingOccurrences(of: "_", with: "-")) is not at a step where \(event.rawValue) can happen")
        }
        state.stage = next
    }
}
