import Foundation

public enum MailKind: String, Sendable, Codable, CaseIterable {
    case signUpCode = "sign_up_code", signInCode = "sign_in_code", resetCode = "reset_code", passwordChanged = "password_changed"
    /// Link mails for the App Services dialect (confirmation and reset links).
    case confirmationLink = "confirmation_link", resetLink = "reset_link"
    /// The notice to an account's previous address that the address was changed.
    case emailChanged = "email_changed"
    /// A second-factor code (sign-in or enrolment of an address), and the notices that a factor was added or removed.
    case secondFactorCode = "second_factor_code", secondFactorAdded = "second_factor_added", secondFactorRemoved = "second_factor_removed"
    /// The owner who just proved the address is told what someone else had put on the account and what was removed.
    case accessRemoved = "access_removed"
    /// The owner is told that wrong passwords paused password sign-in (the pages say no more than "wrong").
    case accountLocked = "account_locked"
    /// The owner is told a passkey was added, and when one's counter went back (a cloned authenticator).
    case passkeyAdded = "passkey_added", passkeyCloneSuspected = "passkey_clone_suspected"
    /// From the account page: the code that proves a new address, and the notices of a passkey removed, a sign-in
    /// with another issuer linked or unlinked, and the account deleted.
    case addressChangeCode = "address_change_code", passkeyRemoved = "passkey_removed"
    case signInLinked = "sign_in_linked", signInUnlinked = "sign_in_unlinked", accountDeleted = "account_deleted"
}

/// A rendered mail: what to send, not how.
public struct MailMessage: Sendable, Codable, Equatable {
    public var to: String
    public var subject: String
    public var text: String
    public var html: String
    public var kind: MailKind
    public var createdAt: Date
}

