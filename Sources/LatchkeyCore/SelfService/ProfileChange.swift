import Foundation

extension SelfService {
    /// The schema's attributes, validated as at sign-up (a required one cannot be emptied). Not a way in: no step-up.
    public func updateProfile(_ holder: AccountHolder, attributes given: [String: JSONValue], caller: CallerInfo) async throws {
        let accepted = try engine.accounts.validateAttributes(given)
        let emptied = settings.attributes.filter { $0.required && $0.kind != .boolean && given[$0.name] == nil }.map(\.name)
        if !emptied.isEmpty { throw LatchkeyError.invalidAttributes(emptied) }
        try await transaction { tx in
            var user = try await self.current(holder, in: tx)
            var changed: [String] = []
            for definition in self.settings.attributes {
                let value = accepted[definition.name]
                guard user.attributes[definition.name] != value else { continue }
                user.attributes[definition.name] = value
                changed.append(definition.name)
            }
            guard !changed.isEmpty else { return }
            user.updatedAt = self.time.now()
            try await tx.users.update(user)
            try await self.audit(tx, "profile_updated", caller: .selfService(caller), userId: user.id, email: user.email,
                                 detail: changed.joined(separator: ", "))
        }
    }
}
