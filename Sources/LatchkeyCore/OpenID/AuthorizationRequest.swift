import Foundation

/// A checked `/authorize` request (OpenID Connect Core §3.1.2.1, RFC 7636): what the hosted pages carry from the
/// first redirect to the code, sealed in the interaction.
public struct AuthorizationRequest: Codable, Sendable, Equatable {
    public var clientId: String
    public var redirectUri: String
    public var scopes: [String]
    public var state: String?
    public var nonce: String?
    public var codeChallenge: String?
    public var prompt: Set<String>
    public var maxAge: Int?
    public var loginHint: String?
    public var uiLocales: String?
    /// A device's sign-in (RFC 8628): the user code typed at `/ui/device`. The visit ends in the device's approval, not
    /// in a redirect, and its `redirectUri` is the device grant's URN.
    public var deviceUserCode: String? = nil
    /// The protected resource (RFC 8707) the access token is for: its `aud`. Nil: the client itself.
    public var resource: String? = nil

    public var isDevice: Bool { deviceUserCode != nil }
}

/// Why `/authorize` refused: before the redirect URI is trusted, an error page and never a redirect (open
/// redirects impossible by construction); after, the OAuth error sent back to the client.
public enum AuthorizationRefusal: Error, Sendable, Equatable {
    case errorPage(String)
    case redirect(OpenIDProblem, redirectUri: String, state: String?)
}

extension PagesService {
    public static let promptValues: Set<String> = ["none", "login", "consent"]

    /// Checks an authorization request's parameters in the order that decides where an error may go: the client and
    /// its redirect URI first (errors shown, never sent), then everything else (errors sent to the redirect URI).
    public func checkAuthorization(_ parameters: [(String, String)]) -> Result<(ClientApplication, AuthorizationRequest), AuthorizationRefusal> {
        var values: [String: String] = [:]
        var repeated: String?
        for (name, value) in parameters where !value.isEmpty {
            if values.updateValue(value, forKey: name) != nil, repeated == nil { repeated = name }
        }
        guard let clientId = values["client_id"] else { return .failure(.errorPage("The sign-in link has no client_id.")) }
        guard let client = engine.client(id: clientId) else {
            return .failure(.errorPage("The application that sent you here is not registered with this server."))
        }
        guard !client.redirectURIs.isEmpty, client.grantTypes.contains(.authorizationCode) else {
            return .failure(.errorPage("The application \(client.name) is not set up to sign in through the browser."))
        }
        guard let redirectUri = values["redirect_uri"] else { return .failure(.errorPage("The sign-in link has no redirect_uri.")) }
        guard Self.redirectMatches(redirectUri, registered: client.redirectURIs), repeated != "redirect_uri", repeated != "client_id" else {
            return .failure(.errorPage("The address this sign-in would return to is not registered for \(client.name)."))
        }
        let state = values["state"]
        func refuse(_ problem: OpenIDProblem) -> Result<(ClientApplication, AuthorizationRequest), AuthorizationRefusal> {
            .failure(.redirect(problem, redirectUri: redirectUri, state: state))
        }
        if repeated == "resource" { return refuse(.invalidTarget("Only one resource may be asked for at a time.")) }
        if let repeated { return refuse(.invalidRequest("The parameter \(repeated) is repeated.")) }
        if values["request"] != nil || values["request_uri"] != nil {
            return refuse(.invalidRequest("Request objects (request, request_uri) are not supported."))
        }
        guard let responseType = values["response_type"] else { return refuse(.invalidRequest("response_type is missing.")) }
        guard responseType == "code" else { return refuse(.unsupportedResponseType) }
        if let mode = values["response_mode"], mode != "query" { return refuse(.invalidRequest("Only response_mode=query is supported.")) }
        let resource = values["resource"].flatMap(engine.resource(uri:))
        if values["resource"] != nil, resource == nil { return refuse(.unknownResource) }
        let scopes = Tokens.parseScopes(values["scope"])
        if let refused = Tokens.refusedScope(scopes, client: client, resource: resource) {
            return refuse(.invalidRequest("The scope \(refused) is not available to this client."))
        }
        let challenge = values["code_challenge"]
        if let method = values["code_challenge_method"], method != "S256" {
            return refuse(.invalidRequest("code_challenge_method must be S256."))
        }
        if let challenge {
            guard values["code_challenge_method"] == "S256" else { return refuse(.invalidRequest("code_challenge_method must be S256.")) }
            guard PKCE.isWellFormed(challenge) else { return refuse(.invalidRequest("code_challenge must be 43 characters of base64url.")) }
        } else if !client.isConfidential {
            return refuse(.invalidRequest("A public client must send a PKCE code_challenge (S256)."))
        }
        let prompt = Set((values["prompt"] ?? "").split(separator: " ").map(String.init))
        guard prompt.isSubset(of: Self.promptValues) else { return refuse(.invalidRequest("prompt holds an unknown value.")) }
        if prompt.contains("none"), prompt.count > 1 { return refuse(.invalidRequest("prompt=none cannot be combined with others.")) }
        var maxAge: Int?
        if let raw = values["max_age"] {
            guard let age = Int(raw), age >= 0 else { return refuse(.invalidRequest("max_age must be a number of seconds.")) }
            maxAge = age
        }
        for (name, limit) in [("state", 2048), ("nonce", 512), ("login_hint", 320), ("ui_locales", 128)] {
            if let value = values[name], value.utf8.count > limit { return refuse(.invalidRequest("\(name) is longer than \(limit) bytes.")) }
        }
        return .success((client, AuthorizationRequest(
            clientId: client.id, redirectUri: redirectUri, scopes: scopes, state: state, nonce: values["nonce"], codeChallenge: challenge,
            prompt: prompt, maxAge: maxAge, loginHint: values["login_hint"], uiLocales: values["ui_locales"], resource: resource?.uri)))
    }

    /// Exact match, except that a registered loopback URI (`http://127.0.0.1`, `http://[::1]`, `http://localhost`)
    /// matches any port, as native apps listen on one the system gives them (RFC 8252 §7.3); and `http://HOST/*` on
    /// loopback, which only test mode's built-in web client has (configuration refuses it), matches any path there.
    static func redirectMatches(_ requested: String, registered: [String]) -> Bool {
        if registered.contains(requested) { return true }
        guard let asked = URLComponents(string: requested), asked.scheme == "http", asked.port != nil, asked.fragment == nil,
              let host = asked.host, ["127.0.0.1", "[::1]", "::1", "localhost"].contains(host) else { return false }
        if registered.contains("http://\(host)/*") { return true }
        var portless = asked
        portless.port = nil
        return portless.string.map(registered.contains) ?? false
    }
}

/// PKCE (RFC 7636) with S256 only.
enum PKCE {
    static let alphabet = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~".utf8)

    /// A challenge is the base64url SHA-256 of a verifier: 43 characters.
    static func isWellFormed(_ challenge: String) -> Bool {
        challenge.utf8.count == 43 && challenge.utf8.allSatisfy(alphabet.contains)
    }

    static func verifies(_ verifier: String, challenge: String) -> Bool {
        guard (43...128).contains(verifier.utf8.count), verifier.utf8.allSatisfy(alphabet.contains) else { return false }
        return Digest.constantTimeEqual(Array(Base64URL.encode(Digest.sha256(Array(verifier.utf8))).utf8), Array(challenge.utf8))
    }
}
