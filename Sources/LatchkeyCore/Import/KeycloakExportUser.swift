import Foundation

/// A user of a Keycloak realm export (`kc.sh export --realm R`, the file's `users` or `realm-users-N.json`): `id`
/// kept, `username`, `email`, `emailVerified`, `enabled`, `firstName`/`lastName`, `attributes{name: [values]}`,
/// `federatedIdentities`, `requiredActions`, and the `password` credential, whose `secretData` and `credentialData`
/// are JSON documents in strings: pbkdf2 (sha1, sha256, sha512) and argon2 at the parameters they were stored with.
public enum KeycloakExportUser {
    public static func user(_ document: [String: JSONValue], line: Int) -> Result<ImportedUser, ImportLineError> {
        guard let id = SourceValues.string(document["id"]) else {
            return .failure(ImportLineError(line: line, reason: "no id: not a Keycloak user"))
        }
        if SourceValues.string(document["serviceAccountClientId"]) != nil {
            return .failure(ImportLineError(line: line, reason: "a client's service account, not a person: not imported"))
        }
        let email = SourceValues.string(document["email"])
        // Keycloak lowercases usernames and, with "email as username", repeats the address.
        let username = SourceValues.string(document["username"]).flatMap { $0.caseInsensitiveCompare(email ?? "") == .orderedSame ? nil : $0 }
        let actions = Set((document["requiredActions"]?.arrayValue ?? []).compactMap(\.stringValue))

        var attributes: [String: JSONValue] = [:]
        if let first = SourceValues.string(document["firstName"]) { attributes["given_name"] = .string(first) }
        if let last = SourceValues.string(document["lastName"]) { attributes["family_name"] = .string(last) }
        for (key, value) in document["attributes"]?.objectValue ?? [:] {
            if case .array(let values) = value { attributes[key] = values.count == 1 ? values[0] : value } else { attributes[key] = value }
        }
        let identities = (document["federatedIdentities"]?.arrayValue ?? []).compactMap { entry -> ImportedIdentity? in
            guard let provider = SourceValues.string(entry.objectValue?["identityProvider"]),
                  let subject = SourceValues.string(entry.objectValue?["userId"]) else { return nil }
            return ImportedIdentity(provider: SourceValues.provider(provider), subject: subject)
        }
        var user = ImportedUser(
            line: line, id: id, email: email, username: username,
            emailVerified: SourceValues.bool(document["emailVerified"]) && !actions.contains("VERIFY_EMAIL"),
            status: document["enabled"] == .bool(false) ? .disabled : .active, attributes: attributes,
            createdAt: SourceValues.epoch(document["createdTimestamp"], milliseconds: true), identities: identities)
        let passwords = (document["credentials"]?.arrayValue ?? []).compactMap(\.objectValue).filter { $0["type"] == .string("password") }
        // UPDATE_PASSWORD: the user was to choose a new one, so the old one does not come along; they reset it.
        if let credential = passwords.last, !actions.contains("UPDATE_PASSWORD") {
            switch hash(credential) {
            case .success(let stored): user.passwordHash = stored
            case .failure(let refusal): user.unusableHash = refusal
            }
        }
        return .success(user)
    }

    /// The stored form of a `password` credential, or why it cannot be verified here.
    static func hash(_ credential: [String: JSONValue]) -> Result<String, ForeignPasswordHash.Refusal> {
        guard let secret = SourceValues.object(credential["secretData"]), let data = SourceValues.object(credential["credentialData"]),
              let value = SourceValues.string(secret["value"]), let salt = SourceValues.string(secret["salt"]) else {
            return .failure(.init(scheme: "keycloak", reason: "secretData or credentialData is missing or not JSON"))
        }
        let algorithm = SourceValues.string(data["algorithm"]) ?? "pbkdf2-sha256"
        let iterations = data["hashIterations"]?.intValue ?? 0
        let parameters = data["additionalParameters"]?.objectValue ?? [:]
        func parameter(_ name: String) -> String? { parameters[name]?.arrayValue?.first?.stringValue ?? parameters[name]?.stringValue }
        if let prf = PBKDF2Hash.PRF(rawValue: algorithm) {
            guard let stored = PBKDF2Hash.encode(prf, iterations: iterations, salt: salt, hash: value) else {
                return .failure(.init(scheme: algorithm, reason: "malformed, or more than \(ForeignPasswordHash.maxPBKDF2Iterations) iterations"))
            }
            return .success(stored)
        }
        if algorithm == "argon2" {
            let type = parameter("type") ?? "id"
            guard let memory = parameter("memory").flatMap(Int.init), let lanes = parameter("parallelism").flatMap(Int.init),
                  let stored = Argon2Hash.encode(type: type, version: parameter("version") ?? "1.3", memoryKiB: memory, passes: iterations,
                                                 lanes: lanes, salt: salt, hash: value) else {
                return .failure(.init(scheme: "argon2\(type)", reason: "malformed, or over the memory and time bounds"))
            }
            return .success(stored)
        }
        return .failure(.init(scheme: algorithm, reason: "not a scheme Latchkey verifies"))
    }
}
