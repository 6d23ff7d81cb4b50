import Foundation

/// The App Services profile of an account: what `auth/profile` answers and what an app function is told of its caller.
extension AppServicesService {
    /// `auth/profile` for the access token's user.
    public func appProfile(accessToken: String?) async throws -> [String: JSONValue] {
        guard let accessToken else { throw LatchkeyError.sessionInvalid }
        return try await profile(of: try engine.tokens.userForAccessToken(accessToken, audience: .appServices))
    }

    /// Every way into the account, in link order (realm-core counts a user as anonymous exactly when the only one
    /// listed is `anon-user`), its type and its profile data.
    func profile(of user: UserRecord) async throws -> [String: JSONValue] {
        var identities: [JSONValue] = []
        var isServer = false
        // In link order: identities the account was made with, then its email and password, then later links.
        let linked = try await engine.identity.identities(of: user)
        let bornWith = linked.filter { $0.createdAt <= user.createdAt }, later = linked.filter { $0.createdAt > user.createdAt }
        func list(_ records: [IdentityRecord]) {
            for identity in records {
                isServer = isServer || identity.provider == "api-key"
                let type = appProviderType(identity.provider)
                identities.append(.object(["id": .string(identity.subject), "provider_type": .string(type), "provider_id": .string(type)]))
            }
        }
        list(bornWith)
        if user.passwordHash != nil, let email = user.email {
            // A stable identity id distinct from the user id, as the hosted service has.
            let id = String(Digest.sha256(Array("identity:local-userpass:\(user.id)".utf8)).hex.prefix(24))
            identities.append(.object(["id": .string(id), "provider_type": "local-userpass", "provider_id": "local-userpass",
                                       "provider_data": .object(["email": .string(email)])]))
        }
        list(later)
        // Profile values must be strings (realm-core reads them as such).
        var data: [String: JSONValue] = [:]
        if let email = user.email { data["email"] = .string(email) }
        if case .string(let name)? = user.attributes["name"] { data["name"] = .string(name) }
        // Fields mapped from a custom JWT's claims; the account's own address wins.
        for (field, value) in user.attributes[Identities.profileAttribute]?.objectValue ?? [:] where data[field] == nil {
            if case .string(let text) = value { data[field] = .string(text) }
        }
        return ["user_id": .string(user.id), "domain_id": .string(engine.tenantId), "type": isServer ? "server" : "normal",
                "identities": .array(identities), "data": .object(data)]
    }
}
