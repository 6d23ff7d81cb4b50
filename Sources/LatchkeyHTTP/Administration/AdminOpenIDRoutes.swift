import Foundation
import Hummingbird
import LatchkeyCore

/// `/admin/v1`: the OpenID provider's side of a user (browser sessions at the hosted pages, consents given to
/// third-party clients) and the configured clients (never their secrets).
extension AdminRoutes {
    func addOpenIDRoutes(to api: RouterGroup<LatchkeyRequestContext>) {
        api.get("/users/:user/browser-sessions") { _, context in
            let sessions = try await self.engine.adminBrowserSessions(try context.parameters.requireUser())
            return JSONResponse.ok(["browser_sessions": .array(sessions.map(Self.browserSession))])
        }
        api.delete("/users/:user/browser-sessions/:id") { _, context in
            try await self.engine.adminEndBrowserSession(try context.parameters.requireUser(), sessionId: try context.parameters.require("id"),
                                                         caller: Self.caller(context))
            return Response(status: .noContent)
        }
        api.get("/users/:user/consents") { _, context in
            let consents = try await self.engine.adminConsents(try context.parameters.requireUser())
            return JSONResponse.ok(["consents": .array(consents.map { consent in
                .object(["client_id": .string(consent.clientId), "scope": .string(consent.scope),
                         "granted_at": .string(consent.grantedAt.ISO8601Format())])
            })])
        }
        api.delete("/users/:user/consents/:client") { _, context in
            let client = try context.parameters.requireDecoded("client", what: "client id")
            try await self.engine.adminRevokeConsent(try context.parameters.requireUser(), clientId: client, caller: Self.caller(context))
            return Response(status: .noContent)
        }
        api.get("/clients") { _, _ in JSONResponse.ok(["clients": .array(self.engine.allClients.map(self.client))]) }
        api.post("/clients") { request, context in
            let body = try await request.decode(as: NewClientBody.self, context: context)
            let (client, secret) = try await self.engine.adminCreateClient(try body.newClient(), caller: Self.caller(context))
            guard case .object(var object) = self.client(client) else { return Response(status: .internalServerError) }
            if let secret { object["client_secret"] = .string(secret) }  // shown once
            return JSONResponse.make(.created, object)
        }
        api.delete("/clients/:id") { _, context in
            try await self.engine.adminDeleteClient(try context.parameters.requireDecoded("id", what: "client id"), caller: Self.caller(context))
            return Response(status: .noContent)
        }
        api.post("/clients/:id/secret") { _, context in
            let id = try context.parameters.requireDecoded("id", what: "client id")
            let secret = try await self.engine.adminRotateClientSecret(id, caller: Self.caller(context))
            return JSONResponse.ok(["client_secret": .string(secret)])
        }
    }

    /// `POST /admin/v1/clients`: the keys of a `clients` entry in the configuration, `confidential` for `secret_file`.
    struct NewClientBody: JSONObjectBody, Sendable {
        var name: String?
        var scopes: [String]?
        var mfa: String?
        var redirect_uris: [String]?
        var post_logout_redirect_uris: [String]?
        var confidential: Bool?
        var first_party: Bool?

        func newClient() throws -> NewClient {
            guard let name, !name.isEmpty else { throw AdminAPIError.badRequest("name is required") }
            var client = NewClient(name: name)
            client.scopes = scopes ?? []
            if let mfa {
                guard let policy = MFAPolicy(rawValue: mfa) else { throw AdminAPIError.badRequest("mfa is off, optional or required") }
                client.mfa = policy
            }
            client.redirectURIs = redirect_uris ?? []
            client.postLogoutRedirectURIs = post_logout_redirect_uris ?? []
            client.confidential = confidential ?? true
            client.firstParty = first_party ?? true
            return client
        }
    }

    static func browserSession(_ session: BrowserSessionRecord) -> JSONValue {
        .object(["id": .string(session.id), "amr": .array(session.amr.split(separator: " ").map { .string(String($0)) }),
                 "auth_time": .string(session.authTime.ISO8601Format()), "expires_at": .string(session.expiresAt.ISO8601Format()),
                 "ip": session.ip.map(JSONValue.string) ?? .null, "user_agent": session.userAgent.map(JSONValue.string) ?? .null])
    }

    func client(_ client: ClientApplication) -> JSONValue {
        .object(["id": .string(client.id), "name": .string(client.name), "scopes": .array(client.scopes.map(JSONValue.string)),
                 "source": .string(engine.source(of: client)),
                 "mfa": .string(client.mfa.rawValue), "redirect_uris": .array(client.redirectURIs.map(JSONValue.string)),
                 "post_logout_redirect_uris": .array(client.postLogoutRedirectURIs.map(JSONValue.string)),
                 "confidential": .bool(client.isConfidential), "first_party": .bool(client.firstParty),
                 "grant_types": .array(client.grantTypes.map(\.rawValue).sorted().map(JSONValue.string))])
    }
}
