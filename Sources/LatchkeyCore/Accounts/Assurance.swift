import Foundation

/// The one rule for "is this session enough for this": signing in at a client (its `mfa` policy), a browser session
/// reused by single sign-on at another client, and every change to a way in, the account's download and its
/// deletion. Every surface asks it; none keeps a check of its own (NIST 800-63B §6.1.2.1: binding or removing an
/// authenticator needs the assurance the account already has; ASVS 5 V6.3, V7.5).
///
/// The rule is pure: what the account holds, what the session proved and when, what is asked. It answers a verdict,
/// never English; each surface says the verdict in its own words.
public enum Assurance {
    /// What is asked of a session.
    public enum Ask: Sendable, Equatable {
        /// Finishing a sign-in at a client of this policy, on a surface that can run `runnable` factors.
        case signIn(MFAPolicy, runnable: Set<StrongFactor>)
        /// Reusing a browser session at a client of this policy (the hosted pages run every kind).
        case singleSignOn(MFAPolicy)
        /// Adding a way in of this kind.
        case add(WayInKind)
        /// Removing a way in of this kind.
        case remove(WayInKind)
        /// Downloading the account's data, or deleting it.
        case download, delete
    }

    public enum Verdict: Sendable, Equatable {
        case enough
        /// The sign-in is older than `mfa.recent_sign_in_seconds` (or has no time): sign in again, then retry.
        case signInAgain
        /// The account holds more than the session proved (a second factor or a passkey, or another way in than the
        /// one being removed): a step-up that offers the account's own factors.
        case stepUp
        /// The sign-in must go on with one of the account's second factors.
        case secondFactor
        /// The policy requires a second factor and the account holds none of any kind: enrol one.
        case enrol
        /// The account holds a second factor this surface cannot run (a passkey on the native API): the browser.
        case notHere
    }

    /// The verdict for `ask`, given what the account holds and what the session proved, at `now`.
    public static func decide(_ ask: Ask, holds: AccountHoldings, proved: SessionProof, now: Date, recentSeconds: Int) -> Verdict {
        switch ask {
        case .signIn(let policy, let runnable):
            return signIn(policy, holds: holds, proved: proved, runnable: runnable)
        case .singleSignOn(let policy):
            return signIn(policy, holds: holds, proved: proved, runnable: Set(StrongFactor.allCases))
        case .add, .download, .delete:
            return change(nil, holds: holds, proved: proved, now: now, recentSeconds: recentSeconds)
        case .remove(let kind):
            return change(kind, holds: holds, proved: proved, now: now, recentSeconds: recentSeconds)
        }
    }

    private static func signIn(_ policy: MFAPolicy, holds: AccountHoldings, proved: SessionProof, runnable: Set<StrongFactor>) -> Verdict {
        guard policy != .off, !proved.multiFactor else { return .enough }
        if !holds.strong.isEmpty { return holds.strong.isDisjoint(with: runnable) ? .notHere : .secondFactor }
        return policy == .required ? .enrol : .enough
    }

    /// A change needs a recent sign-in that proved as much as the account holds: two kinds when it holds a second
    /// factor or a passkey; and a removal never rests on the kind removed alone while another way could prove more.
    private static func change(_ removing: WayInKind?, holds: AccountHoldings, proved: SessionProof, now: Date, recentSeconds: Int) -> Verdict {
        guard let at = proved.authTime, now.timeIntervalSince(at) <= Double(recentSeconds) else { return .signInAgain }
        if !holds.strong.isEmpty, !proved.multiFactor { return .stepUp }
        if let removing {
            let proof = proved.kinds.subtracting([removing.proof])
            let others = holds.proofKinds.subtracting([removing.proof])
            if proof.isEmpty, !others.isEmpty { return .stepUp }
        }
        return .enough
    }
}

/// A factor an account holds beyond its first: what makes a second factor due.
public enum StrongFactor: String, Sendable, CaseIterable {
    case mailedCode, textedCode, authenticator, passkey

    /// What the native API and the other app wires run: every kind but the passkey, which needs a browser.
    public static let appWires: Set<StrongFactor> = [.mailedCode, .textedCode, .authenticator]
}

/// A way into an account, as a change names it.
public enum WayInKind: String, Sendable, CaseIterable {
    case password, address, secondFactor, passkey, identity, apiKey

    /// The kind of proof a session gives with this way in.
    var proof: ProofKind {
        switch self {
        case .password: .knowledge
        case .address: .mailbox
        case .secondFactor: .code
        case .passkey: .passkey
        case .identity: .federated
        case .apiKey: .apiKey
        }
    }
}

/// A kind of proof a sign-in gave, read from its `amr`.
public enum ProofKind: String, Sendable, CaseIterable {
    case knowledge, mailbox, code, passkey, federated, apiKey
}

/// What an account holds, for the rule.
public struct AccountHoldings: Sendable, Equatable {
    public var password: Bool
    public var address: Bool
    public var identities: Bool
    public var apiKeys: Bool
    /// Its second factors and passkeys (recovery codes go with the authenticator and are not counted apart).
    public var strong: Set<StrongFactor>

    public init(password: Bool = false, address: Bool = false, identities: Bool = false, apiKeys: Bool = false, strong: Set<StrongFactor> = []) {
        self.password = password; self.address = address; self.identities = identities; self.apiKeys = apiKeys; self.strong = strong
    }

    /// The kinds of proof the account could sign in with.
    var proofKinds: Set<ProofKind> {
        var kinds = Set<ProofKind>()
        if password { kinds.insert(.knowledge) }
        if address { kinds.insert(.mailbox) }
        if identities { kinds.insert(.federated) }
        if strong.contains(.passkey) { kinds.insert(.passkey) }
        if !strong.subtracting([.passkey]).isEmpty { kinds.insert(.code) }
        return kinds
    }
}

/// What a session proved (RFC 8176 `amr`) and when (`auth_time`).
public struct SessionProof: Sendable, Equatable {
    public var amr: [String]
    public var authTime: Date?

    public init(amr: [String], authTime: Date?) { self.amr = amr; self.authTime = authTime }
    public init(amr: some Sequence<Substring>, authTime: Date?) { self.init(amr: amr.map(String.init), authTime: authTime) }

    /// Two factors of different kinds (the journey set `mfa` only when they were).
    var multiFactor: Bool { amr.contains("mfa") }

    /// The kinds of proof: `otp` without `mfa` is a code mailed to the account's address (a first factor, with a
    /// password typed since beside it); with `mfa` after another first factor it is a second factor's code, and
    /// after none both the mailbox and that code.
    var kinds: Set<ProofKind> {
        var kinds = Set<ProofKind>()
        let firstBesidesCode = amr.contains("pwd") || amr.contains("fed") || amr.contains("hwk") || amr.contains("swk")
        for method in amr {
            switch method {
            case "pwd": kinds.insert(.knowledge)
            case "fed": kinds.insert(.federated)
            case "hwk", "swk": kinds.insert(.passkey)
            case "sms": kinds.insert(.code)
            case "api_key": kinds.insert(.apiKey)
            case "otp":
                if !multiFactor { kinds.insert(.mailbox) } else if firstBesidesCode { kinds.insert(.code) } else {
                    kinds.insert(.mailbox)
                    if !amr.contains("sms") { kinds.insert(.code) }
                }
            default: break
            }
        }
        return kinds
    }
}
