import Foundation
import Hummingbird
import LatchkeyCore

/// The OpenID clients, App Services apps and Parse apps. The configuration file's are read-only here; clients and
/// server API keys made at run time can be made, rotated and revoked. No secret is ever shown but a new one, once.
extension Console {
    func addClientRoutes(to console: RouterGroup<LatchkeyRequestContext>) {
        console.get("/clients") { request, context in
            let visit = try await self.visit(request, context)
            var values = try await self.clientValues(visit)
            values["notice"] = self.notice(request, visit)
            return self.page("clients", visit, values)
        }
        console.post("/clients") { request, context in
            let (visit, form) = try await self.post(request, context)
            let (client, secret) = try await self.engine.adminCreateClient(try Self.newClient(form), caller: visit.caller)
            return try await self.secretPage(visit, what: "client", id: client.id, secret: secret)
        }
        console.post("/clients/:id/delete") { request, context in
            let (visit, _) = try await self.post(request, context)
            try await self.engine.adminDeleteClient(try context.parameters.requireDecoded("id", what: "client id"), caller: visit.caller)
            return self.redirect("/console/clients", visit, done: "client_deleted")
        }
        console.post("/clients/:id/secret") { request, context in
            let (visit, _) = try await self.post(request, context)
            let id = try context.parameters.requireDecoded("id", what: "client id")
            let secret = try await self.engine.adminRotateClientSecret(id, caller: visit.caller)
            return try await self.secretPage(visit, what: "client", id: id, secret: secret)
        }
        console.post("/apps/:app/api-keys") { request, context in
            let (visit, form) = try await self.post(request, context)
            let created = try await self.engine.createServerApiKey(appId: try context.parameters.require("app"), name: form["name"],
                                                                   caller: visit.caller)
            return try await self.secretPage(visit, what: "api_key", id: created.apiKey.id, secret: created.key)
        }
        console.post("/api-keys/:id/revoke") { request, context in
            let (visit, _) = try await self.post(request, context)
            try await self.engine.revokeApiKey(id: try context.parameters.require("id"), caller: visit.caller)
            return self.redirect("/console/clients", visit, done: "api_key_revoked")
        }
    }

    private func clientValues(_ visit: ConsoleVisit) async throws -> [String: Any] {
        let keys = try await engine.serverApiKeys(appId: nil)
        return [
            "title": word("clients", visit), "section": "clients",
            "clients": engine.allClients.map { client -> [String: Any] in
                // Every scope the client may ask for: the standard ones, then its own.
                ["id": client.id, "pathId": client.id.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? client.id,
                 "name": client.name, "scopes": (Tokens.standardScopes + client.scopes).joined(separator: " "),
                 "mfa": client.mfa.rawValue,
                 "redirects": client.redirectURIs, "confidential": client.isConfidential, "firstParty": client.firstParty,
                 "device": client.grantTypes.contains(.deviceCode), "registered": client.selfRegistered,
                 "metadataHost": client.metadataDocumentHost ?? "", "stored": engine.isStoredClient(client.id)]
            },
            "apps": engine.settings.apps.map { app -> [String: Any] in
                ["id": app.id, "confirmation": "\(app.confirmation)", "reset": "\(app.reset)",
                 "providers": app.providers.sorted().joined(separator: " "),
                 "keys": keys.filter { $0.appId == app.id }.map { ["id": $0.id, "name": $0.name, "disabled": $0.disabled,
                                                                  "created": ConsoleFormat.time($0.createdAt)] }]
            },
            "parseApps": engine.settings.parseApps.map { app -> [String: Any] in
                ["id": app.id, "verifyEmails": app.verifyUserEmails, "providers": app.authProviders.sorted().joined(separator: " "),
                 "mfa": app.mfa.rawValue, "functions": app.cloudFunctions.joined(separator: " ")]
            },
        ]
    }

    /// A new secret, shown this once (the page is not cached and not referred).
    private func secretPage(_ visit: ConsoleVisit, what: String, id: String, secret: String?) async throws -> Response {
        var values = try await clientValues(visit)
        values["created"] = ["what": word("new_\(what)", visit), "id": id, "secret": secret ?? ""]
        values["hasSecret"] = secret != nil
        return page("clients", visit, values, status: .created)
    }

    /// The create form: one redirect URI per line, scopes separated by spaces.
    static func newClient(_ form: FormFields) throws -> NewClient {
        guard let name = form["name"]?.trimmingCharacters(in: .whitespaces), !name.isEmpty, name.count <= 200 else {
            throw ConsoleBadInput(message: "error_client_name")
        }
        func lines(_ field: String) -> [String] {
            (form[field] ?? "").split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        }
        var client = NewClient(name: name)
        client.redirectURIs = lines("redirect_uris")
        client.postLogoutRedirectURIs = lines("post_logout_redirect_uris")
        client.scopes = (form["scopes"] ?? "").split(separator: " ").map(String.init)
        guard let mfa = MFAPolicy(rawValue: form["mfa"] ?? "off") else { throw ConsoleBadInput(message: "error_client_mfa") }
        client.mfa = mfa
        client.confidential = form["confidential"] == "yes"
        client.firstParty = form["first_party"] == "yes"
        return client
    }
}
