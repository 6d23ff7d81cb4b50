/// How a journey's first factor passed: what the audit calls it, whether it proved the account's mailbox, its `amr`,
/// and a stronger hash of the password it checked.
struct FirstFactor {
    var method: String
    var mailboxProven: Bool
    var amr: [String]
    var rehash: String?

    static func password(rehash: String?) -> FirstFactor {
        FirstFactor(method: "password", mailboxProven: false, amr: AuthenticationMethods.password, rehash: rehash)
    }
    static let mailedCode = FirstFactor(method: "code", mailboxProven: true, amr: AuthenticationMethods.mailedCode)
    /// A finished sign-up or reset handed on: it proved the mailbox when its code reached it.
    static func continuation(mailboxProven: Bool) -> FirstFactor {
        FirstFactor(method: "continuation_token", mailboxProven: mailboxProven,
                    amr: mailboxProven ? AuthenticationMethods.mailedCode : AuthenticationMethods.password)
    }
    static func federated(by provider: String) -> FirstFactor {
        FirstFactor(method: provider, mailboxProven: false, amr: AuthenticationMethods.federated)
    }
}
