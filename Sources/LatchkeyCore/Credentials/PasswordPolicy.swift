import Foundation

/// NIST 800-63B style: length bounds, no composition rules, refuse the obvious.
extension AccountRules {
    /// A floor that holds even without the shipped list (config/common-passwords.txt, 30,000 entries).
    static let commonPasswords: Set<String> = [
        "password", "password1", "password123", "12345678", "123456789", "1234567890", "qwertyui", "qwerty123",
        "iloveyou", "11111111", "00000000", "abc12345", "letmein1", "welcome1", "football", "baseball",
        "sunshine", "princess", "trustno1", "passw0rd", "superman", "starwars", "master12", "dragon12",
    ]

    /// `identifiers`: the account's email and username; a password equal to one of them (or to an email's local
    /// part) is refused.
    public func passwordProblem(_ password: String, identifiers: [String]) -> PasswordProblem? {
        let policy = settings.passwords
        let length = password.count
        if length < policy.minLength { return .tooShort }
        if length > policy.maxLength { return .tooLong }
        let lowered = password.lowercased()
        let named = identifiers.flatMap { id in [id.lowercased(), String(id.lowercased().split(separator: "@").first ?? "")] }
        if named.contains(lowered) || Self.commonPasswords.contains(lowered)
            || settings.commonPasswords.contains(lowered) { return .banned }
        if Set(password).count < 3 { return .tooWeak }
        return nil
    }

    func requireAcceptablePassword(_ password: String?, identifiers: [String?], missing: RequiredInput = .password) throws -> String {
        guard let password, !password.isEmpty else { throw LatchkeyError.missing(missing) }
        if let problem = passwordProblem(password, identifiers: identifiers.compactMap { $0 }) { throw LatchkeyError.passwordRejected(problem) }
        return password
    }
}
