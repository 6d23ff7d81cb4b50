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

    public init(templates: MustacheLibrary, strings: [String: [String: String]], style: String, policy: ConsoleSessionPolicy) {
        self.templates = templates; self.strings = strings; self.style = style; self.policy = policy
    }
}

/// The console's session cookie: HttpOnly, SameSite=Strict (no other site's page can make the browser send it), and
/// over TLS `__Host-` and Secure. No Max-Age: it ends with the browser, and the server ends it sooner (idle and
/// absolute limits in the sealed value).
struct ConsoleCookie: Sendable {
    let secure: Bool

    var name: String { secure ? "__Host-latchkey_console" : "latchkey_console" }

    func set(_ value: String) -> String {
        "\(name)=\(value); Path=/; HttpOnly; SameSite=Strict" + (secure ? "; Secure" : "")
    }

    var clear: String { self.set("") + "; Max-Age=0" }
}
