import Foundation

/// Roles an operator gives accounts. `operator` lets the account sign in to the console through the hosted pages
/// (with its second factor) instead of with the admin token.
extension OperatorService {
    public enum RoleRefusal: ClassifiedError, Sendable, Equatable {
        /// Only the roles in `UserRole.known` can be given.
        case unknownRole(String)
        public var errorClass: ErrorClass { .invalid }
    }

    public func adminRoles(_ key: String) async throws -> (UserRecord, [UserRole]) {
        let user = try await adminFindUser(key)
        return (user, try await reader.users.roles(userId: user.id))
    }

    /// Gives the role (audited `admin.role_granted`); nothing changes when the user holds it already.
    public func adminGrantRole(_ key: String, role: String, caller: CallerInfo) async throws {
        guard UserRole.known.contains(role) else { throw RoleRefusal.unknownRole(role) }
        let user = try await adminFindUser(key)
        guard user.status != .pending else { throw AdminError.userPending }
        try await transaction { tx in
            guard try await tx.users.grant(UserRole(userId: user.id, role: role, grantedAt: self.time.now())) else { return }
            try await self.audit(tx, "admin.role_granted", caller: caller, userId: user.id, email: user.email, detail: role)
        }
    }

    /// Takes the role away (audited `admin.role_revoked`): a console session it opened ends at its next request.
    public func adminRevokeRole(_ key: String, role: String, caller: CallerInfo) async throws {
        guard UserRole.known.contains(role) else { throw RoleRefusal.unknownRole(role) }
        let user = try await adminFindUser(key)
        try await transaction { tx in
            guard try await tx.users.revoke(role: role, userId: user.id) else { return }
            try await self.audit(tx, "admin.role_revoked", caller: caller, userId: user.id, email: user.email, detail: role)
        }
    }
}
