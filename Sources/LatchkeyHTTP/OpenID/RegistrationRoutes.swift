import Foundation
import Hummingbird
import LatchkeyCore

/// `/oauth2/register`: dynamic client registration (RFC 7591), and the registering client's read and delete of its
/// registration with its registration access token (RFC 7592). Errors are OAuth's bodies (RFC 7591 §3.2.2).
struct RegistrationRoutes: Sendable {
    let tokens: any TokenEndpointSurface
    let clientAddress: ClientAddress

    func addRoutes(to router: Router<LatchkeyRequestContext>) {
        let group = router.group(RouterPath(Tokens.registrationPath)).add(middleware: DialectErrorMiddleware(NativeAuthErrors()))
        group.post { request, context in
            try UnsupportedMediaType.check(request, expected: "application/json")
            let body = try await request.boundedBody(context)
            guard let metadata = JSONValue.decodeUntrusted([String: JSONValue].self, from: Data(buffer: body)) else {
                throw LatchkeyError.openID(.invalidClientMetadata("The body must be one JSON object of client metadata."))
            }
            let caller = clientAddress.serving(.openID).caller(request, context: context, clientId: nil)
            let registration = try await tokens.registerClient(metadata, initialToken: BearerToken.read(request), caller: caller)
            return JSONResponse.make(.created, document(registration))
        }
        group.get(":client") { request, context in
            let registration = try await tokens.registeredClient(id: context.parameters.get("client") ?? "",
                                                                 registrationToken: BearerToken.read(request))
            return JSONResponse.ok(document(registration))
        }
        group.delete(":client") { request, context in
            let caller = clientAddress.serving(.openID).caller(request, context: context, clientId: nil)
            try await tokens.deleteRegisteredClient(id: context.parameters.get("client") ?? "", registrationToken: BearerToken.read(request),
                                                    caller: caller)
            return Response(status: .noContent, headers: [.cacheControl: "no-store"])
        }
    }

    /// The client information response (RFC 7591 §3.2.1); the secrets only in the answer to the registration.
    private func document(_ registration: ClientRegistration) -> [String: JSONValue] {
        let client = registration.client
        var body: [String: JSONValue] = [
            "client_id": .string(client.id), "client_id_issued_at": .int(Int(registration.issuedAt.timeIntervalSince1970)),
            "client_name": .string(client.name), "redirect_uris": .array(client.redirectURIs.map(JSONValue.string)),
            "grant_types": .array(client.grantTypes.map(\.rawValue).sorted().map(JSONValue.string)), "response_types": ["code"],
            "token_endpoint_auth_method": .string(registration.tokenEndpointAuthMethod),
            "registration_client_uri": .string(tokens.settings.publicURL + Tokens.registrationPath + "/" + client.id),
        ]
        if let secret = registration.secret {
            body["client_secret"] = .string(secret)
            body["client_secret_expires_at"] = .int(0)
        }
        if let token = registration.registrationToken { body["registration_access_token"] = .string(token) }
        return body
    }
}
