import HTTPTypes
import Hummingbird
import LatchkeyCore
import Synchronization

/// OpenID Connect discovery, the JWKS that verifies our tokens, and userinfo for access tokens.
struct OpenIDRoutes: Sendable {
    let engine: LatchkeyEngine

    func addRoutes(to router: Router<LatchkeyRequestContext>) {
        // Discovery is fixed for the life of the process and encoded once; the JWKS once per set of published keys.
        let discovery = JSONResponse.Prepared(discoveryDocument(tenant: nil))
        let jwks = PreparedJWKS(ring: engine.keyRing)
        for path in ["/.well-known/openid-configuration", "/v2.0/.well-known/openid-configuration"] {
            router.get(RouterPath(path)) { _, _ in discovery.response() }
            router.get(RouterPath("/:tenant\(path)")) { _, context in
                JSONResponse.ok(self.discoveryDocument(tenant: context.parameters.get("tenant")))
            }
        }
        for prefix in ["", "/:tenant"] {
            router.post("\(prefix)/oauth2/v2.0/authorize") { _, _ in Self.noBrowserFlow() }
            router.get("\(prefix)/oauth2/v2.0/authorize") { _, _ in Self.noBrowserFlow() }
        }
        router.get("/discovery/v2.0/keys") { _, _ in jwks.response() }
        let userInfo = router.group("/oidc/userinfo").add(middleware: DialectErrorMiddleware(NativeAuthErrors()))
        userInfo.get { request, _ in try await self.userInfo(request) }
        userInfo.post { request, _ in try await self.userInfo(request) }
    }

    func discoveryDocument(tenant: String?) -> [String: JSONValue] {
        let base = engine.settings.publicURL
        let root = tenant.map { "\(base)/\($0)" } ?? base
        return [
            "issuer": .string(engine.settings.issuer),
            // MSAL's metadata parser requires the string (docs/native-auth.md); the endpoint answers every
            // request with unsupported_response_type, which is why no response type is advertised.
            "authorization_endpoint": .string("\(root)/oauth2/v2.0/authorize"),
            "token_endpoint": .string("\(root)/oauth2/v2.0/token"),
            "jwks_uri": .string("\(base)/discovery/v2.0/keys"),
            "userinfo_endpoint": .string("\(base)/oidc/userinfo"),
            // Native authentication only: no browser authorization endpoint, so no response types.
            "response_types_supported": [],
            "subject_types_supported": ["public"],
            "id_token_signing_alg_values_supported": ["ES256"],
            "token_endpoint_auth_methods_supported": ["none"],
            "grant_types_supported": ["password", "oob", "mfa_oob", "continuation_token", "refresh_token"],
            "scopes_supported": .array(LatchkeyEngine.standardScopes.map(JSONValue.string)),
            "claims_supported": ["sub", "iss", "aud", "exp", "iat", "nbf", "oid", "tid", "ver", "preferred_username",
                                 "email", "email_verified", "name"],
        ]
    }

    func userInfo(_ request: Request) async throws -> Response {
        guard let token = BearerToken.read(request) else { throw LatchkeyError.accessTokenInvalid }
        let user = try await engine.userForAccessToken(token, audience: .nativeClients)
        var body: [String: JSONValue] = ["sub": .string(user.id), "preferred_username": .string(user.displayName)]
        if let email = user.email {
            body["email"] = .string(email)
            body["email_verified"] = .bool(user.emailVerified)
        }
        if let name = user.attributes["displayName"] { body["name"] = name }
        return JSONResponse.ok(body)
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

extension OpenIDRoutes {
    /// Latchkey signs users in through its APIs only; there is no browser authorization flow.
    static func noBrowserFlow() -> Response {
        JSONResponse.make(.badRequest, ["error": "unsupported_response_type",
                                        "error_description": "This server supports native authentication only."])
    }
}

extension JSONValue: ExpressibleByArrayLiteral {
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
}
