import Foundation
import HTTPTypes
import Hummingbird
import LatchkeyCore
import Synchronization

/// OpenID Connect discovery, the JWKS that verifies our tokens, userinfo, and RFC 7662 introspection and RFC 7009
/// revocation for clients' own tokens. (The browser side, `/authorize` and the pages, is `InteractionPages`.)
struct OpenIDRoutes: Sendable {
    let engine: any PagesSurface
    let clientAddress: ClientAddress
    /// The languages the hosted pages speak.
    let languages: [String]

    func addRoutes(to router: Router<LatchkeyRequestContext>) {
        // Discovery is fixed for the life of the process and encoded once; the JWKS once per set of published keys.
        let discovery = JSONResponse.Prepared(discoveryDocument(tenant: nil))
        let jwks = PreparedJWKS(ring: engine.keyRing)
        // RFC 8414's metadata is the same document (§3: an issuer without a path is looked up at the root).
        for path in ["/.well-known/openid-configuration", "/v2.0/.well-known/openid-configuration", "/.well-known/oauth-authorization-server"] {
            router.get(RouterPath(path)) { _, _ in discovery.response() }
            router.get(RouterPath("/:tenant\(path)")) { _, context in
                JSONResponse.ok(self.discoveryDocument(tenant: context.parameters.get("tenant")))
            }
        }
        // RFC 8414 §3.1: an issuer with a path has its metadata at the well-known path followed by the issuer's path.
        if let issuerPath = URLComponents(string: engine.settings.issuer)?.path, issuerPath.count > 1 {
            router.get(RouterPath("/.well-known/oauth-authorization-server" + issuerPath)) { _, _ in discovery.response() }
        }
        router.get("/.well-known/oauth-authorization-server/:tenant") { _, context in
            JSONResponse.ok(self.discoveryDocument(tenant: context.parameters.get("tenant")))
        }
        router.get("/discovery/v2.0/keys") { _, _ in jwks.response() }
        let oidc = router.group("/oidc").add(middleware: DialectErrorMiddleware(NativeAuthErrors()))
        oidc.get("userinfo") { request, context in try await self.userInfo(request, context) }
        oidc.post("userinfo") { request, context in try await self.userInfo(request, context) }
        oidc.post("introspect") { request, context in
            let (form, client) = try await authenticated(request, context)
            guard client.isConfidential else {
                throw LatchkeyError.openID(.unauthorizedClient("Only confidential clients may introspect tokens."))
            }
            return JSONResponse.ok(try await engine.introspect(token: form.fields["token"], client: client))
        }
        oidc.post("revoke") { request, context in
            let (form, client) = try await authenticated(request, context)
            try await engine.revoke(token: form.fields["token"], client: client,
                                    caller: clientAddress.caller(request, context: context, clientId: client.id))
            return Response(status: .ok, headers: [.cacheControl: "no-store"])
        }
    }

    private func authenticated(_ request: Request, _ context: LatchkeyRequestContext) async throws -> (PageForm, ClientApplication) {
        let form = try await request.decodeForm(as: PageForm.self, context: context)
        do {
            let client = try await ClientCredentials.authenticate(request, clientId: form.fields["client_id"],
                                                                  clientSecret: form.fields["client_secret"],
                                                                  assertion: form.fields["client_assertion"],
                                                                  assertionType: form.fields["client_assertion_type"], engine: engine)
            return (form, client)
        } catch LatchkeyError.missing(.clientId) {
            // RFC 7662 and 7009 speak OAuth, not the native API: a missing or unknown client is invalid_client (401).
            throw LatchkeyError.openID(.invalidClient("Client authentication is missing."))
        } catch LatchkeyError.unknownClient {
            throw LatchkeyError.openID(.invalidClient("The client is not registered."))
        }
    }

    func discoveryDocument(tenant: String?) -> [String: JSONValue] {
        let base = engine.settings.publicURL
        let root = tenant.map { "\(base)/\($0)" } ?? base
        var document: [String: JSONValue] = [
            "issuer": .string(engine.settings.issuer),
            "authorization_endpoint": .string("\(root)/oauth2/v2.0/authorize"),
            "token_endpoint": .string("\(root)/oauth2/v2.0/token"),
            "device_authorization_endpoint": .string("\(root)/oauth2/v2.0/devicecode"),
            "jwks_uri": .string("\(base)/discovery/v2.0/keys"),
            "userinfo_endpoint": .string("\(base)/oidc/userinfo"),
            "end_session_endpoint": .string("\(base)/oauth2/v2.0/logout"),
            "introspection_endpoint": .string("\(base)/oidc/introspect"),
            "revocation_endpoint": .string("\(base)/oidc/revoke"),
            // An extension field: where apps send people to manage their own account.
            "account_url": .string("\(base)\(SelfService.path)"),
            "response_types_supported": ["code"],
            "response_modes_supported": ["query"],
            "subject_types_supported": ["public"],
            "id_token_signing_alg_values_supported": ["ES256"],
            "code_challenge_methods_supported": ["S256"],
            "token_endpoint_auth_methods_supported": ["none", "client_secret_basic", "client_secret_post", "private_key_jwt"],
            "token_endpoint_auth_signing_alg_values_supported": .array(Tokens.assertionAlgorithms.keys.sorted().map(JSONValue.string)),
            "introspection_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post"],
            "revocation_endpoint_auth_methods_supported": ["none", "client_secret_basic", "client_secret_post"],
            // The native API's grants (docs/native-auth.md) are served at the same token endpoint.
            "grant_types_supported": ["authorization_code", "refresh_token", .string(GrantType.deviceCode.rawValue), "password", "oob",
                                      "mfa_oob", "continuation_token"],
            // The standard scopes and those of the configured resources (any client may ask for a resource's).
            "scopes_supported": .array(Self.scopesSupported(engine.settings.resources).map(JSONValue.string)),
            // RFC 8707's `resource` on the authorization, device and token requests (no registered name exists; the
            // MCP drafts and several servers use this one).
            "resource_indicators_supported": .bool(true),
            "prompt_values_supported": .array(PagesService.promptValues.sorted().map(JSONValue.string)),
            "acr_values_supported": ["1", "2"],
            "ui_locales_supported": .array(languages.map(JSONValue.string)),
            "claims_supported": ["sub", "iss", "aud", "exp", "iat", "nbf", "auth_time", "nonce", "acr", "amr", "at_hash", "azp", "oid", "tid",
                                 "ver", "preferred_username", "email", "email_verified", "name"],
            "claims_parameter_supported": .bool(false),
            "request_parameter_supported": .bool(false),
            "request_uri_parameter_supported": .bool(false),
            "authorization_response_iss_parameter_supported": .bool(true),
            // A client_id that is an https URL names its own metadata document (draft-ietf-oauth-client-id-metadata-document).
            "client_id_metadata_document_supported": .bool(engine.settings.openID.metadataDocuments.enabled),
        ]
        if engine.settings.openID.registration.enabled { document["registration_endpoint"] = .string(base + Tokens.registrationPath) }
        return document
    }

    static func scopesSupported(_ resources: [ProtectedResource]) -> [String] {
        var seen = Set<String>()
        return (Tokens.standardScopes + resources.flatMap(\.scopes)).filter { seen.insert($0).inserted }
    }

    /// The access token in the `Authorization` header or, on a POST, in the form body (RFC 6750 §2.2; pyoidc sends
    /// it there by default); never both. A request with none gets a bare challenge (§3.1: no error code).
    func userInfo(_ request: Request, _ context: LatchkeyRequestContext) async throws -> Response {
        var token = BearerToken.read(request)
        if request.method == .post, request.headers[.contentType]?.lowercased().hasPrefix("application/x-www-form-urlencoded") == true,
           let presented = try await request.decodeForm(as: PageForm.self, context: context).fields["access_token"] {
            guard request.headers[.authorization] == nil else {
                throw LatchkeyError.openID(.invalidRequest("The access token was sent in the header and in the body: use one."))
            }
            token = presented
        }
        guard let token, !token.isEmpty else {
            guard request.headers[.authorization] == nil else { throw LatchkeyError.accessTokenInvalid }
            return JSONResponse.make(.unauthorized, ["error": "invalid_request",
                                                     "error_description": "An access token is required: Authorization: Bearer <token>."],
                                     headers: [.wwwAuthenticate: "Bearer"])
        }
        return JSONResponse.ok(try await engine.userInfo(accessToken: token))
    }
}

/// The JWKS document, encoded again only when key rotation changed the published keys.
final class PreparedJWKS: Sendable {
    let ring: SigningKeyRing
    private let cached = Mutex<(generation: Int, document: JSONResponse.Prepared)?>(nil)

    init(ring: SigningKeyRing) { self.ring = ring }

    func response() -> Response {
        let snapshot = ring.snapshot
        return cached.withLock { cached in
            if let cached, cached.generation == snapshot.generation { return cached.document.response() }
            let document = JSONResponse.Prepared(["keys": .array(snapshot.keys.map { .object($0.publicJWK.mapValues(JSONValue.string)) })])
            cached = (snapshot.generation, document)
            return document.response()
        }
    }
}

extension JSONValue: ExpressibleByArrayLiteral {
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
}
