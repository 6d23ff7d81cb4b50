import LatchkeyCore
import Mustache

/// The operator console on the admin listener: its templates and words (config/console, built in) and how long a
/// sign-in lasts.
public struct ConsoleOptions: Sendable {
    public var templates: MustacheLibrary
    /// Language -> key -> text (config/console/<language>.strings).
    public var strings: [String: [String: String]]
    public var style: String
    public var policy: ConsoleSessionPolicy
    /// `<console origin>/console/callback`: operators with an account sign in through the hosted pages and come back here.
    public var accountCallback: String?
    /// Test mode: its captured codes and clock on a page of their own.
    public var testMode: ConsoleTestMode?

    public init(templates: MustacheLibrary, strings: [String: [String: String]], style: String, policy: ConsoleSessionPolicy,
                accountCallback: String? = nil) {
        self.templates = templates; self.strings = strings; self.style = style; self.policy = policy; self.accountCallback = accountCallback
    }
}

/// The console's session cookie: HttpOnly, SameSite=Strict (no other site's page can make the browser send it), and
/// over TLS `__Host-` and Secure. No Max-Age: it ends with the browser, and the server ends it sooner (idle and
/// absolute limits in the sealed value).
struct ConsoleCookie: Sendable {
    let secure: Bool

    var name: String { secure ? "__Host-latchkey_console" : "latchkey_console" }
    /// The account sign-in's state on its way through the hosted pages: Lax, so the top-level navigation back from the
    /// public listener carries it.
    var signInName: String { secure ? "__Host-latchkey_console_signin" : "latchkey_console_signin" }

    func set(_ value: String) -> String {
        "\(name)=\(value); Path=/; HttpOnly; SameSite=Strict" + (secure ? "; Secure" : "")
    }

    var clear: String { self.set("") + "; Max-Age=0" }

    func setSignIn(_ value: String, maxAge: Int) -> String {
        "\(signInName)=\(value); Path=/; HttpOnly; SameSite=Lax; Max-Age=\(maxAge)" + (secure ? "; Secure" : "")
    }
}
