import Foundation
import HTTPTypes
import Hummingbird
import LatchkeyCore

/// Signing in to the console with the admin token and a name to act under, and signing out.
extension Console {
    /// Signing in and out: method, path (under `/console`), handler.
    var signInRoutes: [NamedRoute] {
        [
            NamedRoute(.get, "/sign-in", showSignIn),
            NamedRoute(.post, "/sign-in", signInWithToken),
            NamedRoute(.get, "/sign-in/account", startAccountSignIn),
            NamedRoute(.get, "/callback", finishAccountSignIn),
            NamedRoute(.post, "/sign-out", signOut),
        ]
    }

    func addSignInRoutes(to console: RouterGroup<LatchkeyRequestContext>) {
        console.add(signInRoutes)
    }

    private func showSignIn(_ request: Request, _ context: LatchkeyRequestContext) async throws -> Response {
        let next = Self.safeNext(request.uri.queryParameters["next"].map(String.init))
        if (try? await self.visit(request, context)) != nil { return Self.redirect(next ?? "/console/") }
        return self.signInPage(request, next: next)
    }

    private func signInWithToken(_ request: Request, _ context: LatchkeyRequestContext) async throws -> Response {
        let form = try await request.decodeForm(as: ConsoleForm.self, context: context).fields
        let next = Self.safeNext(form["next"])
        guard let name = ConsoleSession.acceptableName(form["name"]) else {
            return self.signInPage(request, next: next, error: "sign_in_bad_name", status: .badRequest)
        }
        guard let token = form["token"], token.utf8.count <= 1024,
              Digest.constantTimeEqual(Digest.sha256(Array(token.utf8)), self.credential) else {
            // Logged, not written to the database: a wrong guess costs the server a hash and a line.
            self.engine.logger.warning("console sign-in refused: wrong admin token",
                                       metadata: ["ip": "\(context.remoteAddress?.ipAddress ?? "-")"])
            return self.signInPage(request, next: next, error: "sign_in_bad_token", status: .unauthorized, name: name)
        }
        let session = self.engine.newConsoleSession(operatorName: name, credential: self.credential)
        let caller = self.engine.consoleCaller(session, ip: context.remoteAddress?.ipAddress, userAgent: request.headers[.userAgent])
        try await self.engine.auditConsoleSignIn(caller: caller)
        var response = Self.redirect(next ?? "/console/")
        response.headers.append(HTTPField(name: .setCookie, value: self.cookie.set(self.engine.sealConsoleSession(session))))
        return response
    }

    private func startAccountSignIn(_ request: Request, _: LatchkeyRequestContext) async throws -> Response {
        guard let callback = self.accountCallback else { throw HTTPError(.notFound) }
        let (url, state) = self.engine.startConsoleSignIn(redirectURI: callback,
                                                          next: Self.safeNext(request.uri.queryParameters["next"].map(String.init)))
        var response = Self.redirect(url)
        response.headers.append(HTTPField(name: .setCookie, value: self.cookie.setSignIn(state, maxAge: 600)))
        return response
    }

    private func finishAccountSignIn(_ request: Request, _ context: LatchkeyRequestContext) async throws -> Response {
        guard let callback = self.accountCallback else { throw HTTPError(.notFound) }
        let query = request.uri.queryParameters
        // The provider says why it gave no code (the user cancelled, or the sign-in failed).
        if query["error"] != nil { return self.signInPage(request, next: nil, error: "sign_in_account_cancelled", status: .badRequest) }
        let caller = CallerInfo(dialect: .console, clientId: "console", ip: context.remoteAddress?.ipAddress, userAgent: request.headers[.userAgent])
        do {
            let (session, next) = try await self.engine.finishConsoleSignIn(
                code: query["code"].map(String.init), state: query["state"].map(String.init),
                cookie: PageCookies.read(self.cookie.signInName, from: request, limit: 2048), redirectURI: callback, caller: caller)
            var response = Self.redirect(next ?? "/console/")
            response.headers.append(HTTPField(name: .setCookie, value: self.cookie.set(self.engine.sealConsoleSession(session))))
            response.headers.append(HTTPField(name: .setCookie, value: self.cookie.setSignIn("", maxAge: 0)))
            return response
        } catch OperatorService.ConsoleSignInRefusal.notAnOperator {
            return self.signInPage(request, next: nil, error: "sign_in_not_operator", status: .forbidden)
        } catch OperatorService.ConsoleSignInRefusal.stateMismatch {
            return self.signInPage(request, next: nil, error: "sign_in_account_stale", status: .badRequest)
        } catch LatchkeyError.openID {
            return self.signInPage(request, next: nil, error: "sign_in_account_stale", status: .badRequest)
        }
    }

    private func signOut(_ request: Request, _ context: LatchkeyRequestContext) async throws -> Response {
        // Signing out needs no live session (an idled-out one signs out too), but a live one's token.
        if let visit = try? await self.visit(request, context) {
            let form = try await request.decodeForm(as: ConsoleForm.self, context: context).fields
            guard self.engine.consoleCSRFTokenMatches(form["csrf"], session: visit.session) else { throw ConsoleCSRFRefused() }
        }
        var response = Self.redirect("/console/sign-in?done=signed_out")
        response.headers.append(HTTPField(name: .setCookie, value: self.cookie.clear))
        return response
    }

    private func signInPage(_ request: Request, next: String?, error: String? = nil, status: HTTPResponse.Status = .ok,
                            name: String? = nil) -> Response {
        let language = language(request)
        var values: [String: Any] = ["title": pages.strings[language]?["sign_in_title"] ?? "Sign in", "next": next ?? "", "name": name ?? "",
                                     "accounts": accountCallback != nil,
                                     "accountLink": "/console/sign-in/account" + (next.map { "?next=" + ConsoleErrors.escape($0) } ?? "")]
        if let error { values["error"] = pages.strings[language]?[error] ?? error }
        if let done = request.uri.queryParameters["done"], done == "signed_out" { values["notice"] = pages.strings[language]?["done_signed_out"] }
        // A stale cookie (idled out, or from before the token changed) is cleared.
        let stale = PageCookies.read(cookie.name, from: request, limit: 2048) != nil
        return pages.render("sign_in", status, values, language: language, cookies: stale ? [cookie.clear] : [])
    }

    /// Only a path inside the console: never another origin (`//host`) or a scheme.
    static func safeNext(_ text: String?) -> String? {
        guard let text, text.hasPrefix("/console/"), !text.contains("\\"), !text.contains("//"), text.utf8.count <= 512,
              text.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F }) else { return nil }
        return text
    }
}
