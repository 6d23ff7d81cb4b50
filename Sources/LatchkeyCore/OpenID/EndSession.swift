import Foundation

/// A checked RP-initiated logout request (OpenID Connect RP-Initiated Logout 1.0).
public struct LogoutRequest: Sendable, Equatable {
    /// The client asking, named by `id_token_hint` or `client_id`.
    public var client: ClientApplication?
    /// Where to send the browser afterwards (with `state`), when the client registered that address.
    public var redirect: String?
    /// The user the ID token hint names: a sign-out for that user's own session needs no confirmation.
    public var hintSubject: String?
}

/// Why a sign-out request is refused: always a page, never a redirect.
public struct LogoutRefusal: Error, Sendable, Equatable {
    public var message: String
}

extension PagesService {
    /// Checks `id_token_hint`, `client_id` and `post_logout_redirect_uri`. A redirect URI goes only to an address
    /// the client registered; anything wrong is an error page, never a redirect.
    public func checkLogout(idTokenHint: String?, clientId: String?, postLogoutRedirectUri: String?,
                            state: String?) async -> Result<LogoutRequest, LogoutRefusal> {
        var client: ClientApplication?
        var subject: String?
        if let hint = idTokenHint, !hint.isEmpty {
            // An expired ID token still names who signed in (that is what it is for, here); the signature must hold.
            // Only an ID token: an access token (typed `at+jwt`, with its `scp`) names no sign-in to end.
            guard !JWT.isAccessToken(hint, keys: engine.signingKeys),
                  let claims = JWT.verify(hint, keys: engine.signingKeys, as: HintClaims.self), claims.scp == nil, claims.iss == settings.issuer,
                  let hinted = engine.client(id: claims.aud) else {
                return .failure(LogoutRefusal(message: "The sign-out link carries an ID token this server did not issue."))
            }
            client = hinted
            subject = claims.sub
        }
        if let clientId, !clientId.isEmpty {
            guard let named = engine.client(id: clientId) else {
                return .failure(LogoutRefusal(message: "The application that sent you here is not registered with this server."))
            }
            if let client, client.id != named.id {
                return .failure(LogoutRefusal(message: "client_id and the ID token hint name different applications."))
            }
            client = named
        }
        var redirect: String?
        if let uri = postLogoutRedirectUri, !uri.isEmpty {
            guard let client else { return .failure(LogoutRefusal(message: "A return address needs id_token_hint or client_id to check it against.")) }
            guard client.postLogoutRedirectURIs.contains(uri) else {
                return .failure(LogoutRefusal(message: "The address this sign-out would return to is not registered for \(client.name)."))
            }
            redirect = Self.redirect(uri, ["state": state])
        }
        return .success(LogoutRequest(client: client, redirect: redirect, hintSubject: subject))
    }

    private struct HintClaims: Decodable {
        let iss: String
        let aud: String
        let sub: String
        let scp: String?
    }
}
