/// `accounts.*`: what the events that change who holds an account end.
struct AccountSettings: ConfigSection {
    static let section = "accounts"
    static let keys = ["reset_revokes_api_keys"]

    /// A password reset ends the account's user API keys too (they were made by whoever held the account).
    var resetRevokesApiKeys: Bool

    init(_ config: SectionReader) throws {
        resetRevokesApiKeys = try config.bool("reset_revokes_api_keys", default: true)
    }
}
