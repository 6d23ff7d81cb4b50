import Hummingbird
import LatchkeyCore

/// One request from a signed-in operator: their session (its idle clock restarted), the language to speak, who acts
/// in the audit trail, and the CSRF token the page's forms carry.
struct ConsoleVisit: Sendable {
    var session: ConsoleSession
    var language: String
    var caller: CallerInfo
    var csrf: String
}

/// A console page was asked for without a live session: answered with a redirect to the sign-in page.
struct ConsoleSignInRequired: Error {
    /// Where to go after signing in (a GET's own path), nil for a form post.
    var next: String?
}

/// A console form came without its CSRF token, or with another session's.
struct ConsoleCSRFRefused: Error {}

/// A console form or query the console cannot act on; the text says why.
struct ConsoleBadInput: Error {
    var message: String
}
