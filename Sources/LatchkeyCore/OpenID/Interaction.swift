import Foundation

/// One visit to the hosted pages, from `/authorize` to the redirect back: the checked request, sealed (AES-GCM
/// under a key derived from the server key) into the pages' forms and links, so any replica can continue it and
/// nobody can change it. It is bound to the browser's CSRF cookie, so a link someone else started is useless.
public struct Interaction: Codable, Sendable, Equatable {
    public var request: AuthorizationRequest
    /// HMAC of the browser's CSRF cookie.
    var browser: Data
    var expiresAt: Date
    /// The browser session a sign-in during this visit opened: it satisfies `prompt=login` and `max_age`.
    public var signedInSession: String?
    /// The continuation token of the sign-in, sign-up or reset flow the pages are driving.
    public var flowToken: String?
    /// The masked address or phone number the last code went to: the code page names it again after a wrong code.
    public var codeTarget: String?
    /// The address typed on the sign-in page when it has no account: its code page resends as a real one would.
    public var decoyAddress: String?
}

extension PagesService {
    public func newInteraction(_ request: AuthorizationRequest, csrfCookie: String) -> Interaction {
        Interaction(request: request, browser: browserBinding(csrfCookie),
                    expiresAt: time.now() + Double(settings.openID.interactionTTLSeconds))
    }

    public func seal(_ interaction: Interaction) -> String {
        Base64URL.encode(keys.interaction.seal(interaction.packed))
    }

    /// The interaction sealed in `text`, if this server sealed it for this browser and it has not expired.
    public func openInteraction(_ text: String?, csrfCookie: String?) -> Interaction? {
        guard let text, text.utf8.count <= 8192, let csrfCookie, let sealed = Base64URL.decode(text),
              let plain = keys.interaction.open(sealed),
              let interaction = Interaction(packed: plain),
              Digest.constantTimeEqual([UInt8](interaction.browser), [UInt8](browserBinding(csrfCookie))),
              interaction.expiresAt > time.now() else { return nil }
        return interaction
    }

    /// The token each page's form carries for this browser's CSRF cookie (double submit, bound by an HMAC so a
    /// cookie planted by a sibling host is no help without the server key).
    public func csrfToken(for cookie: String) -> String {
        Base64URL.encode(keys.page.mac(Array("csrf|\(cookie)".utf8)))
    }

    public func csrfTokenMatches(_ token: String?, cookie: String?) -> Bool {
        guard let token, let cookie, !cookie.isEmpty else { return false }
        return Digest.constantTimeEqual(Array(token.utf8), Array(csrfToken(for: cookie).utf8))
    }

    private func browserBinding(_ cookie: String) -> Data {
        Data(keys.page.mac(Array("interaction|\(cookie)".utf8)))
    }
}
