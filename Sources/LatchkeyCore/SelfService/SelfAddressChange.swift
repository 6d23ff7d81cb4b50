import Foundation

/// A new address, proven by a code mailed to it. The account model's address change applies (the old address is
/// told, links mailed to it die); the code proves the new mailbox, so the address is verified without ending any
/// other way in (the owner proved who they are by the recent sign-in). Giving up the old address is a removal, so a
/// sign-in by a code to that address alone is not enough while the account has a password: the page asks for it.
extension SelfService {
    private func addressCodeName(_ user: UserRecord) -> String { "account-address:\(user.id)" }

    /// Mails a code to `newEmail`; returns it normalized (the page shows it masked and posts it back with the code).
    public func startAddressChange(_ holder: AccountHolder, newEmail: String?, currentPassword: String?, caller: CallerInfo) async throws -> String {
        let caller = CallerInfo.selfService(caller)
        try await requireAssurance(.remove(.address), holder, proved: try await proof(holder, typedPassword: currentPassword, caller: caller))
        let email = try engine.accounts.requireEmail(newEmail)
        guard email != holder.user.email else { throw LatchkeyError.emailTaken }
        try await engine.accounts.requireNoIdentifierClash(username: nil, email: email, excluding: holder.user.id, in: reader)
        if try await reader.users.find(email: email) != nil { throw LatchkeyError.emailTaken }
        let code = try await mailCode(.addressChangeCode, to: email, holder, caller: caller)
        try await engine.proofs.savePendingCode(code, name: addressCodeName(holder.user), target: email, channel: "email",
                                                clientId: Self.clientId, user: holder.user)
        return email
    }

    /// The start asked the rule for the removal (and left a pending code only then); the code now proves the new
    /// mailbox, which the rule asks of any session adding an address.
    public func finishAddressChange(_ holder: AccountHolder, newEmail: String?, code: String?, caller: CallerInfo) async throws {
        try await requireAssurance(.add(.address), holder)
        let caller = CallerInfo.selfService(caller)
        let email = try engine.accounts.requireEmail(newEmail)
        if let wrong = try await engine.proofs.redeemPendingCode(name: addressCodeName(holder.user), target: email, code: code) { throw wrong }
        try await transaction { tx in
            var user = try await self.current(holder, in: tx)
            try await self.engine.accounts.changeEmail(of: &user, to: email, caller: caller, in: tx)
            try await self.engine.accounts.proveAddress(&user, through: .assured("address change, code to the new address"), caller: caller, in: tx)
            try await tx.users.update(user)
        }
    }
}
