/// The abuse limits. Every rule is on by default; `enabled: false` switches all of them off (test rigs only).
public struct LimitSettings: Sendable, Equatable {
    public enum Rule: String, CaseIterable, Sendable {
        case signUpPerIP = "signup_per_ip"
        case signInPerIP = "signin_per_ip"
        case credentialPerIP = "credential_per_ip"
        case codePerAccount = "code_per_account"
        case mailPerIP = "mail_per_ip"
        case mailPerAddress = "mail_per_address"
        case resetPerIP = "reset_per_ip"
        case functionPerIP = "function_per_ip"
        case updatePerIP = "update_per_ip"
        case deviceCodePerIP = "device_code_per_ip"
        case registrationPerIP = "registration_per_ip"

        var isPerIP: Bool { self != .codePerAccount && self != .mailPerAddress }

        /// What this limit counts, for the refusal every dialect words from it (`limits.<rule>` names it exactly).
        public var counts: String {
            switch self {
            case .signUpPerIP: "sign-ups from this network"
            case .signInPerIP: "sign-ins started from this network"
            case .credentialPerIP: "password and code attempts from this network"
            case .codePerAccount: "code attempts for this address"
            case .mailPerIP: "mails requested from this network"
            case .mailPerAddress: "mails to this address"
            case .resetPerIP: "password resets started from this network"
            case .functionPerIP: "function calls from this network"
            case .updatePerIP: "account changes from this network"
            case .deviceCodePerIP: "device codes typed from this network"
            case .registrationPerIP: "client registrations from this network"
            }
        }
    }

    public var enabled = true
    public var rules: [Rule: RateRule] = [
        .signUpPerIP: RateRule(20, per: 600),           // accounts created from one address
        .signInPerIP: RateRule(60, per: 60),            // sign-in initiations
        .credentialPerIP: RateRule(30, per: 60),        // password and code checks
        .codePerAccount: RateRule(20, per: 600),        // code checks against one address (passwords: the lockout)
        .mailPerIP: RateRule(20, per: 600),             // code mails and resends requested from one address
        .mailPerAddress: RateRule(5, per: 3600),        // mails to one mailbox: no mail-bombing
        .resetPerIP: RateRule(10, per: 600),            // reset starts
        .functionPerIP: RateRule(60, per: 60),          // cloud function calls (each may run an operator's command)
        .updatePerIP: RateRule(30, per: 60),            // account changes (fields, email, password) from one address
        .registrationPerIP: RateRule(10, per: 3600),    // self-registered clients (RFC 7591) from one address
        .deviceCodePerIP: RateRule(10, per: 600),       // user codes typed at /ui/device: 34 bits are never guessed at this rate
    ]

    /// Lockout after wrong passwords: this many are free, then the account waits `lockoutBaseSeconds`,
    /// doubling with each further failure up to `lockoutMaxSeconds`.
    public var lockoutFreeAttempts = 5
    public var lockoutBaseSeconds = 30
    public var lockoutMaxSeconds = 900

    public init() {}

    /// Every rate allowed `factor` times as many requests in its window (test mode: limits present, but roomy). The
    /// lockout is kept as it is: tests of it must see it.
    public mutating func scale(by factor: Int) {
        for (rule, rate) in rules { rules[rule] = rate.scaled(factor) }
    }
}
