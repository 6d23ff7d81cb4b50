import Foundation
import Testing
@testable import LatchkeyCore

/// The assurance rule as a table: what the account holds × what the session proved × what is asked, each verdict
/// written out row by row. A letter per ask, in `asks` order: E enough, A sign in again, U step-up, S second factor,
/// R enrol, N not on this surface.
@Suite struct AssuranceTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let window = 300

    static let asks: [Assurance.Ask] = [
        .singleSignOn(.off), .singleSignOn(.optional), .singleSignOn(.required), .signIn(.optional, runnable: StrongFactor.appWires),
        .add(.passkey), .remove(.passkey), .remove(.password), .remove(.address), .remove(.secondFactor), .delete,
    ]

    static let holdings: [String: AccountHoldings] = [
        "password": AccountHoldings(password: true, address: true),
        "password+authenticator": AccountHoldings(password: true, address: true, strong: [.authenticator]),
        "password+passkey": AccountHoldings(password: true, address: true, strong: [.passkey]),
        "address only": AccountHoldings(address: true),
        "address+mailed factor": AccountHoldings(address: true, strong: [.mailedCode]),
    ]

    static let proofs: [String: SessionProof] = [
        "pwd": SessionProof(amr: ["pwd"], authTime: now - 10),
        "mailed code": SessionProof(amr: ["otp"], authTime: now - 10),
        "mailed code, password typed": SessionProof(amr: ["pwd", "otp"], authTime: now - 10),
        "pwd+code": SessionProof(amr: ["pwd", "otp", "mfa"], authTime: now - 10),
        "passkey": SessionProof(amr: ["hwk", "mfa"], authTime: now - 10),
        "issuer": SessionProof(amr: ["fed"], authTime: now - 10),
        "pwd+code, stale": SessionProof(amr: ["pwd", "otp", "mfa"], authTime: now - 3600),
    ]

    static let table: [(String, String, String)] = [
        ("password", "pwd", "EERE EEUEEE"),
        ("password", "mailed code", "EERE EEEUEE"),
        ("password", "mailed code, password typed", "EERE EEEEEE"),
        ("password", "pwd+code", "EEEE EEEEEE"),
        ("password", "passkey", "EEEE EUEEEE"),
        ("password", "issuer", "EERE EEEEEE"),
        ("password", "pwd+code, stale", "EEEE AAAAAA"),
        ("password+authenticator", "pwd", "ESSS UUUUUU"),
        ("password+authenticator", "mailed code", "ESSS UUUUUU"),
        ("password+authenticator", "mailed code, password typed", "ESSS UUUUUU"),
        ("password+authenticator", "pwd+code", "EEEE EEEEEE"),
        ("password+authenticator", "passkey", "EEEE EUEEEE"),
        ("password+authenticator", "issuer", "ESSS UUUUUU"),
        ("password+authenticator", "pwd+code, stale", "EEEE AAAAAA"),
        ("password+passkey", "pwd", "ESSN UUUUUU"),
        ("password+passkey", "mailed code", "ESSN UUUUUU"),
        ("password+passkey", "mailed code, password typed", "ESSN UUUUUU"),
        ("password+passkey", "pwd+code", "EEEE EEEEEE"),
        ("password+passkey", "passkey", "EEEE EUEEEE"),
        ("password+passkey", "issuer", "ESSN UUUUUU"),
        ("password+passkey", "pwd+code, stale", "EEEE AAAAAA"),
        ("address only", "pwd", "EERE EEUEEE"),
        ("address only", "mailed code", "EERE EEEEEE"),
        ("address only", "mailed code, password typed", "EERE EEEEEE"),
        ("address only", "pwd+code", "EEEE EEEEEE"),
        ("address only", "passkey", "EEEE EUEEEE"),
        ("address only", "issuer", "EERE EEEEEE"),
        ("address only", "pwd+code, stale", "EEEE AAAAAA"),
        ("address+mailed factor", "pwd", "ESSS UUUUUU"),
        ("address+mailed factor", "mailed code", "ESSS UUUUUU"),
        ("address+mailed factor", "mailed code, password typed", "ESSS UUUUUU"),
        ("address+mailed factor", "pwd+code", "EEEE EEEEEE"),
        ("address+mailed factor", "passkey", "EEEE EUEEEE"),
        ("address+mailed factor", "issuer", "ESSS UUUUUU"),
        ("address+mailed factor", "pwd+code, stale", "EEEE AAAAAA"),
    ]

    static func letter(_ verdict: Assurance.Verdict) -> Character {
        switch verdict {
        case .enough: "E"
        case .signInAgain: "A"
        case .stepUp: "U"
        case .secondFactor: "S"
        case .enrol: "R"
        case .notHere: "N"
        }
    }

    @Test func everyCombinationIsInTheTable() {
        #expect(Self.table.count == Self.holdings.count * Self.proofs.count)
        for (holding, proof, expected) in Self.table {
            let holds = Self.holdings[holding]!, proved = Self.proofs[proof]!
            let got = String(Self.asks.map { Self.letter(Assurance.decide($0, holds: holds, proved: proved, now: Self.now, recentSeconds: Self.window)) })
            #expect(got == expected.filter { $0 != " " }, "holds \(holding), proved \(proof)")
        }
    }

    /// The native wire cannot run a passkey: an account whose only second factor is one is never "without a factor".
    @Test func aSurfaceThatCannotRunTheFactorRefusesRatherThanEnrols() {
        let holds = AccountHoldings(password: true, address: true, strong: [.passkey])
        let pwd = SessionProof(amr: ["pwd"], authTime: nil)
        for policy in [MFAPolicy.optional, .required] {
            #expect(Assurance.decide(.signIn(policy, runnable: StrongFactor.appWires), holds: holds, proved: pwd, now: Self.now, recentSeconds: 300) == .notHere)
        }
        #expect(Assurance.decide(.signIn(.required, runnable: StrongFactor.appWires), holds: AccountHoldings(password: true), proved: pwd,
                                 now: Self.now, recentSeconds: 300) == .enrol)
    }

    /// `otp` is a mailbox without `mfa` (a password typed since beside it), a second factor's code after another
    /// first factor, and both after `mfa` alone.
    @Test func proofKindsFromAmr() {
        #expect(SessionProof(amr: ["otp"], authTime: nil).kinds == [.mailbox])
        #expect(SessionProof(amr: ["pwd", "otp"], authTime: nil).kinds == [.knowledge, .mailbox])
        #expect(SessionProof(amr: ["pwd", "otp", "mfa"], authTime: nil).kinds == [.knowledge, .code])
        #expect(SessionProof(amr: ["otp", "mfa"], authTime: nil).kinds == [.mailbox, .code])
        #expect(SessionProof(amr: ["otp", "sms", "mfa"], authTime: nil).kinds == [.mailbox, .code])
        #expect(SessionProof(amr: ["swk", "mfa"], authTime: nil).kinds == [.passkey])
        #expect(SessionProof(amr: ["fed", "hwk", "mfa"], authTime: nil).kinds == [.federated, .passkey])
    }

    /// A session with no time is never recent enough for a change.
    @Test func aSessionWithoutATimeChangesNothing() {
        #expect(Assurance.decide(.add(.apiKey), holds: AccountHoldings(password: true), proved: SessionProof(amr: ["pwd"], authTime: nil),
                                 now: Self.now, recentSeconds: 300) == .signInAgain)
    }
}
