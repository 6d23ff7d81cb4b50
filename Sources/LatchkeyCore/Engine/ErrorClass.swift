/// What kind of failure an engine refusal is, decided once here for every surface: a surface answers the class with
/// its wire's status (and `Retry-After` when the class carries a delay) and adds only its own codes and words.
public enum ErrorClass: Sendable, Equatable {
    /// The request is malformed or names something that cannot be done as asked.
    case invalid
    /// The caller did not prove who they are (a wrong password or code, a dead session or token).
    case unauthenticated
    /// The caller is known, and this is not theirs to do (or not with this sign-in).
    case forbidden
    case notFound
    /// The request is well-formed but contradicts what is stored (an address taken, the last way in).
    case conflict
    /// Over a limit or locked: retry after the delay.
    case throttled(retryAfterSeconds: Int)
    /// The server (or something it depends on) cannot take it now: retry after the delay.
    case unavailable(retryAfterSeconds: Int)
    /// The server failed; nothing was written and the log holds the detail.
    case `internal`

    /// The delay a throttled or unavailable answer's `Retry-After` carries.
    public var retryAfterSeconds: Int? {
        switch self {
        case .throttled(let seconds), .unavailable(let seconds): max(1, seconds)
        default: nil
        }
    }

    /// The plain HTTP status for the class, for surfaces with no wire rules of their own (the admin API, the console,
    /// the hosted pages, the edge).
    public var httpStatus: Int {
        switch self {
        case .invalid: 400
        case .unauthenticated: 401
        case .forbidden: 403
        case .notFound: 404
        case .conflict: 409
        case .throttled: 429
        case .unavailable: 503
        case .internal: 500
        }
    }
}

/// A refusal whose class the engine has decided. Every error a service throws at a surface is one.
public protocol ClassifiedError: Error {
    var errorClass: ErrorClass { get }
}
