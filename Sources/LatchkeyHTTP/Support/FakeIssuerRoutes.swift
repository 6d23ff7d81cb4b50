import Foundation
import HTTPTypes
import Hummingbird
import LatchkeyCore

/// Test mode's stand-in issuers under `/testing/v1/issuer/{name}`: discovery, JWKS, the authorize page (a form saying
/// who signs in), the token endpoint for its codes, and `POST .../id-token` for a token with any claims.
struct FakeIssuerRoutes: Sendable {
    let issuers: FakeIssuers
    let pages: HTMLPages
    /// Test mode's `config`, for the testing API's `Host` rule.
    let config: JSONValue

    /// An issuer's endpoints: method, path under `/testing/v1/issuer/{name}`, handler.
    var routes: [NamedRoute] {
        [
            NamedRoute(.get, "/.well-known/openid-configuration", discovery),
            NamedRoute(.get, "/jwks", keys),
            NamedRoute(.get, "/authorize", authorizePage),
            NamedRoute(.post, "/authorize", authorize),
            NamedRoute(.post, "/token", token),
            NamedRoute(.post, "/id-token", idToken),
        ]
    }

    func addRoutes(to parent: Router<LatchkeyRequestContext>) {
        let router = parent.group().add(middleware: TestingGuard(config: config, formsToo: true))
        router.add(routes, under: "/testing/v1/issuer/:name")
    }

    private func discovery(_: Request, _ context: LatchkeyRequestContext) async throws -> Response {
        guard let name = name(context) else { return unknown() }
        return JSONResponse.make(.ok, value: issuers.discovery(name))
    }

    private func keys(_: Request, _ context: LatchkeyRequestContext) async throws -> Response {
        guard name(context) != nil else { return unknown() }
        return JSONResponse.make(.ok, value: issuers.jwks)
    }

    private func authorizePage(_ request: Request, _ context: LatchkeyRequestContext) async throws -> Response {
        guard let name = name(context) else { return unknown() }
        let query = request.uri.queryParameters
        guard let redirect = query["redirect_uri"].map(String.init), URL(string: redirect)?.scheme != nil else {
            return pages.error(.badRequest, message: "redirect_uri is missing or not a URL.")
        }
        return pages.render("test_issuer", .ok, [
            "title": "\(PagesService.providerLabel(name)) (test mode)", "action": "/testing/v1/issuer/\(name)/authorize",
            "clientId": query["client_id"].map(String.init) ?? FakeIssuers.audience(name), "redirectUri": redirect,
            "state": query["state"].map(String.init) ?? "", "nonce": query["nonce"].map(String.init) ?? "",
            "subject": "test-" + SecureRandom.token(byteCount: 6),
        ])
    }

    private func authorize(_ request: Request, _ context: LatchkeyRequestContext) async throws -> Response {
        guard let name = name(context) else { return unknown() }
        let form = try await request.decodeForm(as: PageForm.self, context: context).fields
        guard let redirect = form["redirect_uri"], var target = URLComponents(string: redirect), let subject = form["sub"], !subject.isEmpty else {
            return pages.error(.badRequest, message: "The form needs redirect_uri and a subject.")
        }
        var claims: [String: JSONValue] = ["sub": .string(subject), "aud": .string(form["client_id"] ?? FakeIssuers.audience(name))]
        if let email = form["email"], !email.isEmpty {
            claims["email"] = .string(email)
            claims["email_verified"] = .bool(form["email_verified"] != nil)
        }
        if let person = form["name"], !person.isEmpty { claims["name"] = .string(person) }
        if let nonce = form["nonce"], !nonce.isEmpty { claims["nonce"] = .string(nonce) }
        target.queryItems = (target.queryItems ?? []) + [URLQueryItem(name: "code", value: issuers.newCode(claims)),
                                                         URLQueryItem(name: "state", value: form["state"] ?? ""),
                                                         URLQueryItem(name: "iss", value: issuers.issuer(name))]
        return Response(status: .seeOther, headers: [.location: target.string ?? redirect, .cacheControl: "no-store"])
    }

    private func token(_ request: Request, _ context: LatchkeyRequestContext) async throws -> Response {
        guard let name = name(context) else { return unknown() }
        let form = try await request.decodeForm(as: PageForm.self, context: context).fields
        guard form["grant_type"] == "authorization_code", let code = form["code"], let claims = issuers.redeem(code) else {
            return JSONResponse.make(.badRequest, ["error": "invalid_grant", "error_description": "the code is unknown, used or expired"])
        }
        return JSONResponse.ok(["id_token": .string(try issuers.idToken(name, claims: claims)), "access_token": .string(SecureRandom.token()),
                                "token_type": "Bearer", "expires_in": .int(600)])
    }

    private func idToken(_ request: Request, _ context: LatchkeyRequestContext) async throws -> Response {
        guard let name = name(context) else { return unknown() }
        var request = request
        let buffer = try await request.collectBody(upTo: 64 * 1024)
        let body = buffer.readableBytes == 0 ? JSONValue.object([:]) : try? JSONDecoder().decode(JSONValue.self, from: Data(buffer: buffer))
        guard case .object(let claims)? = body else {
            return JSONResponse.make(.badRequest, ["error": "invalid_request", "error_description": "the body is the token's claims as a JSON object"])
        }
        return JSONResponse.ok(["id_token": .string(try issuers.idToken(name, claims: claims))])
    }

    private func name(_ context: LatchkeyRequestContext) -> String? {
        context.parameters.get("name").flatMap { FakeIssuers.isName($0) ? $0 : nil }
    }

    private func unknown() -> Response {
        JSONResponse.make(.notFound, ["error": "not_found", "error_description": "an issuer's name is 1 to 40 letters, digits, - or _"])
    }
}
