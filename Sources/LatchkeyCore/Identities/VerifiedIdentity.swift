import Foundation
import Synchronization

/// What a strategy proved: an identity of a provider, and what the provider vouches for about the person.
public struct VerifiedIdentity: Sendable, Equatable {
    /// The engine's provider name: `anonymous`, or a configured issuer's name (`apple`, `google`, `corp`, ...).
    public var provider: String
    public var subject: String
    /// An address the provider says it verified, and only from providers trusted for addresses.
    public var verifiedEmail: String?
    public var name: String?
    /// Profile fields the operator maps from a custom JWT's claims (`identities.custom_jwt.<name>.claims`), refreshed
    /// on every sign-in.
    public var profile: [String: String] = [:]

    public init(provider: String, subject: String, verifiedEmail: String? = nil, name: String? = nil, profile: [String: String] = [:]) {
        self.provider = provider; self.subject = subject; self.verifiedEmail = verifiedEmail; self.name = name; self.profile = profile
    }

    public static let anonymousProvider = "anonymous"
    /// Identities made by an App Services app's custom function.
    public static let functionProvider = "custom-function"
    public var isAnonymous: Bool { provider == Self.anonymousProvider }

    /// The identity as the account holds it, with the address its issuer vouched for (its provenance).
    func record(userId: String, at now: Date) -> IdentityRecord {
        IdentityRecord(provider: provider, subject: subject, userId: userId, createdAt: now,
                       verifiedEmail: verifiedEmail.flatMap(EmailAddress.normalize))
    }
}

/// The account an identity signed into, and whether the sign-in made it.
public struct IdentityLogin: Sendable {
    public var user: UserRecord
    public var created: Bool
    /// The sign-in's record when it is still to be written: a finisher that opens a session writes it with the
    /// session (`sessions.insert(_:noting:)`); what no finisher takes is written after it.
    var pending: PendingNote? = nil
}

/// A `SessionNote` written exactly once: by whoever takes it first, else by the sign-in that made it.
final class PendingNote: Sendable {
    private let note: Mutex<SessionNote?>

    init(_ note: SessionNote) { self.note = Mutex(note) }

    func take() -> SessionNote? { note.withLock { note in defer { note = nil }; return note } }
}
