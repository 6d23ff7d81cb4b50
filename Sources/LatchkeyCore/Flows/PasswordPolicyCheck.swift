import Foundation

/// NIST 800-63B style: length bounds, no composition rules, refuse the obvious.
extension LatchkeyEngine {
    /// A floor that holds even without the shipped list (config/common-passwords.txt, 30,000 entries).
    static let commonPasswords: Set<String> = [
        "password", "password1", "password123", "12345678", "123456789", "1234567890", "qwertyui", "qwerty123",
        "iloveyou", "11111111", "00000000", "abc12345", "letmein1", "welcome1", "football", "baseball",
        "sunshine", "princess", "trustno1", "passw0rd", "superman", "starwars", "master12", "dragon12",
    ]

    public func passwordProblem(_ password: String, email: String) -> PasswordProblem? {
        let policy = settings.passwords
        let length = password.count
        if length < policy.minLength { return .tooShort }
        if length > policy.maxLength { return .tooLong }
        let lowered = password.lowercased()
        let localPart = email.split(separator: "@").first.map(String.init) ?? email
        if lowered == email || lowered == localPart || Self.commonPasswords.contains(lowered)
            || settings.commonPasswords.contains(lowered) { return .banned }
        if Set(password).count < 3 { return .tooWeak }
        return nil
    }

    func requireAcceptablePassword(_ password: String?, email: String) throws -> String {
        guard let password, !password.isEmpty else { throw LatchkeyError.missingParameter("password") }
        if let problem = passwordProblem(password, email: email) { throw LatchkeyError.passwordRejected(problem) }
        return password
    }
}
