import Foundation
import Hummingbird
import LatchkeyCore

/// `mfa/v1.0/authenticator/start | confirm`: a signed-in native user (`Authorization: Bearer <access token>`) enrols
/// an authenticator app. Latchkey's own endpoints (MSAL has none for this), in the native dialect's error shape.
struct AuthenticatorEndpoints: Sendable {
    let engine: any NativeAuthSurface
    let clientAddress: ClientAddress

    func addRoutes(to router: Router<LatchkeyRequestContext>) {
        let group = router.group("/mfa/v1.0/authenticator").add(middleware: DialectErrorMiddleware(NativeAuthErrors()))
        group.post("start") { request, context in
            guard let token = BearerToken.read(request) else { throw LatchkeyError.accessTokenInvalid }
            let offer = try await engine.beginAuthenticatorEnrolment(accessToken: token, caller: clientAddress.caller(request, context: context,
                                                                                                                   clientId: nil))
            return JSONResponse.ok(["secret": .string(offer.secret), "otpauth_uri": .string(offer.uri),
                                    "continuation_token": .string(offer.continuationToken), "code_length": .int(TOTP.digits)])
        }
        group.post("confirm") { request, context in
            guard let token = BearerToken.read(request) else { throw LatchkeyError.accessTokenInvalid }
            let form = try await request.decodeForm(as: NativeAuthForm.self, context: context)
            let codes = try await engine.confirmAuthenticatorEnrolment(accessToken: token, continuationToken: form.continuationToken,
                                                                       code: form.oob,
                                                                       caller: clientAddress.caller(request, context: context, clientId: nil))
            return JSONResponse.ok(["recovery_codes": .array(codes.map(JSONValue.string))])
        }
    }
}
