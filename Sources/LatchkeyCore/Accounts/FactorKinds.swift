/// What counts as a second factor: one of a different kind from the first. Two proofs of one kind prove no more than
/// one: after a sign-in by a code mailed to the account's address, a second code to the same mailbox says nothing new.
public enum FactorKind: String, Sendable {
    /// Something known: a password.
    case knowledge
    /// A mailbox that received a code or a link.
    case mailbox
    /// A phone number that received a text message.
    case phone
    /// A device secret: an authenticator app (and its recovery codes).
    case device
    /// An issuer that vouched for the person (Apple, Google, an OpenID issuer).
    case federated
}

extension FlowRecord {
    /// The kinds of proof the journey gave before its second factor. A journey that set a password (a sign-up with one,
    /// a reset) holds the mailbox its code reached and the password chosen with it: MSAL's `preverified` registration
    /// makes that address the second factor of later password sign-ins, two kinds. `user` is the journey's account.
    func firstFactorKinds(of user: UserRecord) -> Set<FactorKind> {
        var kinds = Set<FactorKind>()
        for method in state.factors.amr {
            switch method {
            case "pwd": kinds.insert(.knowledge)
            case "otp": kinds.insert(.mailbox)
            case "fed": kinds.insert(.federated)
            default: break
            }
        }
        if kind == .passwordReset || (kind == .signUp && user.passwordHash != nil) { kinds.insert(.knowledge) }
        return kinds
    }
}

extension AccountRules {
    /// Whether `factor` may be the second factor of a journey whose first factor gave `first`: not when the first
    /// was that same mailbox alone.
    static func isSecondFactor(_ factor: SecondFactorRecord, of user: UserRecord, after first: Set<FactorKind>) -> Bool {
        !(first == [.mailbox] && factor.kind == .email && factor.target == user.email)
    }

    /// Whether enrolling `contact` as a mailed factor adds a second kind to a journey whose first factor gave `first`.
    static func addsAKind(email contact: String, of user: UserRecord, after first: Set<FactorKind>) -> Bool {
        !(first == [.mailbox] && contact == user.email)
    }
}
