/// A change to an account's identities that a dialect asked for, its credential already verified.
public enum IdentityChange: Sendable, Equatable {
    case link(VerifiedIdentity)
    case unlink(provider: String)
}
