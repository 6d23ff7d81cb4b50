import LatchkeyCore

/// `passwords.*`: the scrypt cost, length bounds and the list of passwords refused as too common.
struct PasswordSettings: ConfigSection {
    static let section = "passwords"
    static let keys = ["scrypt_log_n", "scrypt_r", "scrypt_p", "min_length", "max_length", "common_list"]

    var policy = PasswordPolicy()
    /// A file overriding the built-in list (nil: the copy the binary carries).
    var commonListPath: String?

    init(_ config: SectionReader) throws {
        policy.scrypt = ScryptParameters(logN: try config.int("scrypt_log_n", default: 17, range: 10...20),
                                         r: try config.int("scrypt_r", default: 8, range: 1...32),
                                         p: try config.int("scrypt_p", default: 1, range: 1...16))
        guard policy.scrypt.isWithinMemoryBudget else {
            throw config.error("scrypt_log_n",
                               "with scrypt_r and scrypt_p this needs more than \(ScryptParameters.memoryBudget >> 20) MiB per hash (128·N·r·p)")
        }
        policy.minLength = try config.int("min_length", default: policy.minLength, range: 1...256)
        policy.maxLength = try config.int("max_length", default: policy.maxLength, range: policy.minLength...4096)
        commonListPath = try config.path("common_list", default: nil)
    }
}
