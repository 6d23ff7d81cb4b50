import Foundation
import HTTPTypes
import Hummingbird
import LatchkeyCore

/// The passkey wire under `/ui/passkeys/`: WebAuthn Level 3's JSON forms out (`PublicKeyCredentialCreationOptionsJSON`,
/// `PublicKeyCredentialRequestOptionsJSON`) and in (`RegistrationResponseJSON`, `AuthenticationResponseJSON`, what
/// `PublicKeyCredential.toJSON()` gives), each call bound to the browser's visit: its CSRF cookie, and the form token
/// in `X-CSRF-Token`. A sign-in answers where the visit goes next (`location`: the app, or `/ui/continue` for a page
/// such as consent), with the browser session's cookie. Errors are `{error, error_description}`, the path's surface.
extension InteractionPages {
    static let csrfHeader = HTTPField.Name("X-CSRF-Token")!
    static let interactionHeader = HTTPField.Name("X-Latchkey-Interaction")!
    /// Set by "Not now" on the passkey offer: this browser is not asked again for 30 days.
    var passkeyLaterCookie: String { cookies.secure ? "__Host-latchkey_passkey_later" : "latchkey_passkey_later" }

    func addPasskeyRoutes(to router: Router<LatchkeyRequestContext>) {
        router.post("/ui/passkeys/registration/options") { request, context in
            await passkeyCall(request, context) { visit, _ in
                .ok(try await engine.passkeyRegistrationOptions(sessionCookie: visit.sessionCookie, csrfCookie: visit.csrfCookie))
            }
        }
        router.post("/ui/passkeys/registration") { request, context in
            await passkeyCall(request, context) { visit, body in
                // The query as a form (`+` is a space), so `?name=Work+laptop` names it as a browser would send it.
                let name = (try? FormFields(ByteBuffer(string: request.uri.query ?? "")))?["name"]
                let (passkey, cookie) = try await engine.registerPasskey(body, name: name, sessionCookie: visit.sessionCookie,
                                                                         csrfCookie: visit.csrfCookie, caller: visit.caller)
                return .ok(.object(["id": .string(passkey.id), "name": .string(passkey.name), "backup_eligible": .bool(passkey.backupEligible)]),
                           cookies: cookie.map { [self.cookies.session($0)] } ?? [])
            }
        }
        router.post("/ui/passkeys/authentication/options") { request, context in
            await passkeyCall(request, context) { visit, _ in .ok(try await engine.passkeyAuthenticationOptions(csrfCookie: visit.csrfCookie)) }
        }
        router.post("/ui/passkeys/authentication") { request, context in
            await passkeyCall(request, context) { visit, body in
                guard let interaction = visit.interaction else {
                    return .refused(.badRequest, "expired_visit", "X-Latchkey-Interaction is missing, expired or from another browser: start the sign-in again")
                }
                let progress = try await engine.signInWithPasskey(body, interaction: interaction, csrfCookie: visit.csrfCookie, caller: visit.caller)
                var cookies: [String] = []
                if let cookie = progress.newSessionCookie {
                    cookies.append(self.cookies.session(cookie))
                }
                let location = if case .redirect(let uri) = progress.page { uri } else {
                    "/ui/continue?interaction=\(QueryEncoding.encode(engine.seal(progress.interaction)))"
                }
                return .signedIn(location: location, cookies: cookies)
            }
        }
        // Where a passkey sign-in goes on when the visit has a page to show (consent, say): rendered with the new session.
        router.get("/ui/continue") { request, context in
            var visit = visit(request, context)
            guard let interaction = visit.interaction else { return problem("expired", visit, status: .badRequest) }
            if request.uri.queryParameters["passkey"] == "later" {
                visit.cookies.append(cookies.set(passkeyLaterCookie, "1", maxAge: 30 * 24 * 3600))
            }
            return await step({ try await proceed(interaction, visit) }, visit: visit)
        }
    }

    enum PasskeyAnswer {
        case ok(JSONValue, cookies: [String] = [])
        case signedIn(location: String, cookies: [String])
        case refused(HTTPResponse.Status, String, String)
    }

    /// One call of the passkey wire: the visit's CSRF token checked first, then the body (64 KB at most), then `body`;
    /// a refusal is `{error, error_description}` naming the check that failed.
    private func passkeyCall(_ request: Request, _ context: LatchkeyRequestContext,
                             _ body: (PageVisit, Data) async throws -> PasskeyAnswer) async -> Response {
        var visit = visit(request, context)
        if let sealed = request.headers[Self.interactionHeader] {
            visit.interaction = engine.openInteraction(sealed, csrfCookie: visit.newCSRFCookie ? nil : visit.csrfCookie)
            visit.caller.clientId = visit.interaction?.request.clientId
        }
        let answer: PasskeyAnswer
        do {
            guard engine.passkeysEnabled else { throw LatchkeyError.passkeyRefused("passkeys are not enabled here") }
            guard !visit.newCSRFCookie, engine.csrfTokenMatches(request.headers[Self.csrfHeader], cookie: visit.csrfCookie) else {
                return Self.json(.forbidden, ["error": "csrf", "error_description": "X-CSRF-Token is missing or is not this browser's form token"],
                                 cookies: visit.cookies)
            }
            var request = request
            let bytes = try await request.collectBody(upTo: 64 * 1024)
            answer = try await body(visit, Data(buffer: bytes))
        } catch let error as LatchkeyError {
            // The pages' one status map; the code says what to do about it.
            let (status, code, description): (HTTPResponse.Status, String, String) = switch error {
            case .passkeyRefused(let reason): (.badRequest, "passkey_refused", reason)
            case .secondFactor(.signInNotRecent): (.unauthorized, "sign_in_again", "sign in again: adding a passkey needs a recent sign-in")
            case .secondFactor(.stepUpNeeded):
                (.unauthorized, "sign_in_again", "sign in again with the account's second factor or passkey: adding a passkey needs it")
            case .rateLimited: (PageStatus.of(error), "slow_down", "too many attempts; wait a moment")
            case .serverBusy: (PageStatus.of(error), "temporarily_unavailable", "the server could not take this now; try again")
            case .storeFailure: (PageStatus.of(error), "server_error", "the server could not complete this; try again")
            case .flowStepMismatch(let what): (PageStatus.of(error), "passkey_refused", what)
            case .flowTokenInvalid, .flowTokenExpired: (PageStatus.of(error), "expired_visit", "this sign-in's step expired or was used: start again")
            case .unknownClient: (PageStatus.of(error), "invalid_client", "the visit names no client registered here")
            default: (PageStatus.of(error), "passkey_refused", "the passkey step was refused")
            }
            var refused = Self.json(status, ["error": .string(code), "error_description": .string(description)], cookies: visit.cookies)
            if let seconds = error.errorClass.retryAfterSeconds { refused.headers[.retryAfter] = String(seconds) }
            return refused
        } catch {
            return Self.json(.contentTooLarge, ["error": "invalid_request", "error_description": "the body is larger than 64 KB"], cookies: visit.cookies)
        }
        switch answer {
        case .ok(let value, let cookies): return Self.json(.ok, value: value, cookies: visit.cookies + cookies)
        case .signedIn(let location, let cookies):
            return Self.json(.ok, ["location": .string(location)], cookies: visit.cookies + cookies)
        case .refused(let status, let code, let description):
            return Self.json(status, ["error": .string(code), "error_description": .string(description)], cookies: visit.cookies)
        }
    }

    private static func json(_ status: HTTPResponse.Status, _ body: [String: JSONValue], cookies: [String]) -> Response {
        json(status, value: .object(body), cookies: cookies)
    }

    private static func json(_ status: HTTPResponse.Status, value: JSONValue, cookies: [String]) -> Response {
        var headers = HTTPFields()
        for cookie in cookies { headers.append(HTTPField(name: .setCookie, value: cookie)) }
        return JSONResponse.make(status, value: value, headers: headers)
    }
}
