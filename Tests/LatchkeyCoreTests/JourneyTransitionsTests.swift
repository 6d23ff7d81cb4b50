import Foundation
import Testing
@testable import LatchkeyCore

/// The journey's states as a table: every kind of flow × every stage × every event, each either the stage it leads
/// to (listed here, row by row) or a refusal (everything not listed).
@Suite struct JourneyTransitionsTests {
    typealias Kind = FlowRecord.Kind
    typealias Stage = FlowState.Stage

    /// (kind, from, event) → to. Everything else is refused.
    static let allowed: [(Kind, Stage, JourneyEvent, Stage)] = {
        var rows: [(Kind, Stage, JourneyEvent, Stage)] = []
        for from: Stage in [.started, .codeSent, .passwordChallenged] {
            rows += [(.signIn, from, .passwordChosen, .passwordChallenged), (.signIn, from, .codeSent, .codeSent),
                     (.signIn, from, .secondFactorDue, .mfaRequired), (.signIn, from, .enrolmentDue, .registrationRequired)]
        }
        for kind: Kind in [.signUp, .passwordReset] {
            rows += [(kind, .started, .codeSent, .codeSent), (kind, .codeSent, .codeSent, .codeSent),
                     (kind, .completed, .secondFactorDue, .mfaRequired), (kind, .completed, .enrolmentDue, .registrationRequired)]
        }
        for from: Stage in [.codeSent, .passwordRequired, .attributesRequired] {
            rows += [(.signUp, from, .passwordMissing, .passwordRequired), (.signUp, from, .attributesMissing, .attributesRequired),
                     (.signUp, from, .accountCreated, .completed)]
        }
        rows += [(.passwordReset, .codeSent, .codeVerified, .codeVerified), (.passwordReset, .codeVerified, .passwordSet, .completed)]
        for kind: Kind in [.signIn, .signUp, .passwordReset] {
            for from: Stage in [.mfaRequired, .mfaChallenged] { rows.append((kind, from, .secondFactorCodeSent, .mfaChallenged)) }
            for from: Stage in [.registrationRequired, .registrationChallenged, .registrationPreverified] {
                rows += [(kind, from, .enrolmentCodeSent, .registrationChallenged), (kind, from, .enrolmentPreverified, .registrationPreverified)]
            }
            for from: Stage in [.registrationChallenged, .registrationPreverified] { rows.append((kind, from, .enrolmentVerified, .registrationVerified)) }
        }
        return rows
    }()

    static let kinds: [Kind] = [.signIn, .signUp, .passwordReset]
    static let stages: [Stage] = [.started, .codeSent, .codeVerified, .passwordRequired, .attributesRequired, .passwordChallenged, .completed,
                                  .mfaRequired, .mfaChallenged, .registrationRequired, .registrationChallenged, .registrationPreverified,
                                  .registrationVerified]

    @Test func everyStateAndEventLeadsWhereTheTableSaysOrIsRefused() {
        var expected: [String: Stage] = [:]
        for (kind, from, event, to) in Self.allowed { expected["\(kind.rawValue) \(from.rawValue) \(event.rawValue)"] = to }
        var checked = 0
        for kind in Self.kinds {
            for stage in Self.stages {
                for event in JourneyEvent.allCases {
                    let key = "\(kind.rawValue) \(stage.rawValue) \(event.rawValue)"
                    #expect(JourneyTransitions.next(kind, from: stage, on: event) == expected[key], "\(key)")
                    checked += 1
                }
            }
        }
        #expect(checked == 3 * 13 * JourneyEvent.allCases.count)
        #expect(expected.count == Self.allowed.count, "a row is listed twice")
    }

    @Test func aRefusedStepChangesNothingAndNamesTheStep() throws {
        var flow = FlowRecord(id: "f", tokenHash: Data(), kind: .passwordReset, email: "ada@example.com", userId: nil,
                              state: FlowState(stage: .started, client: JourneyClient(id: "app", acceptsCode: true, acceptsPassword: true),
                                                details: .reset(ResetProgress())),
                              expiresAt: Date(timeIntervalSince1970: 0), createdAt: Date(timeIntervalSince1970: 0))
        #expect(throws: LatchkeyError.flowStepMismatch("this password-reset is not at a step where passwordSet can happen")) {
            try flow.take(.passwordSet)
        }
        #expect(flow.state.stage == .started)
        try flow.take(.codeSent)
        try flow.take(.codeVerified)
        try flow.take(.passwordSet)
        #expect(flow.state.stage == .completed)
    }

    /// Each step a call brings is awaited at exactly these stages (every other kind × stage refuses it, in one wording).
    static let awaited: [JourneyStep: [(Kind, Set<Stage>)]] = [
        .challenge: [(.signIn, [.started, .codeSent, .passwordChallenged]), (.signUp, [.started, .codeSent, .passwordRequired]),
                     (.passwordReset, [.started, .codeSent])],
        .password: [(.signIn, [.passwordChallenged])],
        .code: [(.signIn, [.codeSent]), (.signUp, [.codeSent]), (.passwordReset, [.codeSent])],
        .missingPassword: [(.signUp, [.passwordRequired])],
        .attributes: [(.signUp, [.attributesRequired])],
        .newPassword: [(.passwordReset, [.codeVerified])],
    ]

    @Test func everyStepIsAwaitedWhereTheJourneyWaitsForItAndRefusedElsewhere() throws {
        let stages: [Stage] = [.started, .codeSent, .passwordChallenged, .passwordRequired, .attributesRequired, .codeVerified, .completed,
                               .mfaRequired, .mfaChallenged, .registrationRequired, .registrationChallenged, .registrationPreverified,
                               .registrationVerified]
        let kinds: [Kind] = [.signIn, .signUp, .passwordReset]
        for step in JourneyStep.allCases {
            #expect(kinds.contains { kind in stages.contains { step.isAwaited(by: kind, at: $0) } }, "\(step) is awaited nowhere")
        }
        for (step, rows) in Self.awaited {
            for kind in kinds {
                let expected = rows.first { $0.0 == kind }?.1 ?? []
                #expect(Set(stages.filter { step.isAwaited(by: kind, at: $0) }) == expected, "\(step) for \(kind)")
            }
        }
        let flow = FlowRecord(id: "f", tokenHash: Data(), kind: .signUp, email: "ada@example.com", userId: nil,
                              state: FlowState(stage: .codeSent, client: JourneyClient(id: "app", acceptsCode: true, acceptsPassword: true),
                                               details: .signUp(SignUpProgress())),
                              expiresAt: Date(timeIntervalSince1970: 0), createdAt: Date(timeIntervalSince1970: 0))
        #expect(throws: LatchkeyError.flowStepMismatch("this sign-up is not waiting for a password")) { try flow.require(.missingPassword) }
        try flow.require(.code)
    }
}
