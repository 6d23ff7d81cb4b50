/// `accounts.*`: what the events that change who holds an account end.
struct AccountSettings: ConfigSection {
    static let section = "accounts"
    static let keys = ["reset_revokes_api_keys", "keep_identities_verifying_the_address", "legacy_password.function",
                       "legacy_password.unknown_addresses"]

    /// A password reset ends the account's user API keys too (they were made by whoever held the account).
    var resetRevokesApiKeys: Bool
    /// Proving the address keeps an identity (Apple, Google, an issuer trusted for addresses) that verified the same one.
    var keepIdentitiesVerifyingTheAddress: Bool
    /// The function (under `functions:`) that checks an imported account's first password against the old system.
    var legacyPasswordFunction: String?

    init(_ config: SectionReader, functions: Set<String>) throws {
        resetRevokesApiKeys = try config.bool("reset_revokes_api_keys", default: true)
        keepIdentitiesVerifyingTheAddress = try config.bool("keep_identities_verifying_the_address", default: false)
        let function = try config.string("legacy_password.function", default: "")
        if !function.isEmpty {
            guard functions.contains(function) else { throw config.error("legacy_password.function", "\(function) is not declared under functions:") }
            legacyPasswordFunction = function
        }
        // Creating accounts for unknown addresses at sign-in is not served yet: refused rather than silently ignored.
        if try config.bool("legacy_password.unknown_addresses", default: false) {
            throw config.error("legacy_password.unknown_addresses", "true is not supported yet: import the accounts first (latchkey import)")
        }
    }
}
