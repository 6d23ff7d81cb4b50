/// `accounts.*`: what the events that change who holds an account end.
struct AccountSettings: ConfigSection {
    static let section = "accounts"
    static let keys = ["reset_revokes_api_keys", "keep_identities_verifying_the_address"]

    /// A password reset ends the account's user API keys too (they were made by whoever held the account).
    var resetRevokesApiKeys: Bool
    /// Proving the address keeps an identity (Apple, Google, an issuer trusted for addresses) that verified the same one.
    var keepIdentitiesVerifyingTheAddress: Bool

    init(_ config: SectionReader) throws {
        resetRevokesApiKeys = try config.bool("reset_revokes_api_keys", default: true)
        keepIdentitiesVerifyingTheAddress = try config.bool("keep_identities_verifying_the_address", default: false)
    }
}
