import Foundation
import Hummingbird
import LatchkeyCore

/// The signing keys: which signs, which are still published, how old each is; rotate, or revoke a compromised one.
extension Console {
    func addKeyRoutes(to console: RouterGroup<LatchkeyRequestContext>) {
        console.get("/keys") { request, context in
            let visit = try await self.visit(request, context)
            let now = self.engine.time.now()
            let keys = try await self.engine.signingKeyInfo()
            var values: [String: Any] = [
                "title": self.word("keys", visit), "section": "keys",
                "keys": keys.map { ["kid": $0.kid, "alg": $0.algorithm, "state": self.word("key_\($0.state.rawValue)", visit),
                                    "created": ConsoleFormat.time($0.createdAt), "age": ConsoleFormat.age($0.createdAt, now: now),
                                    "revocable": $0.state != .retired] },
            ]
            values["notice"] = self.notice(request, visit)
            return self.page("keys", visit, values)
        }
        console.post("/keys/rotate") { request, context in
            let (visit, _) = try await self.post(request, context)
            _ = try await self.engine.rotateSigningKey(caller: visit.caller)
            return self.redirect("/console/keys", visit, done: "key_rotated")
        }
        console.post("/keys/:kid/revoke") { request, context in
            let (visit, form) = try await self.post(request, context)
            // Every token the key signed stops verifying: the operator ticks that they mean it.
            guard form["understood"] == "yes" else { throw ConsoleBadInput(message: "error_confirm_revoke") }
            _ = try await self.engine.revokeSigningKey(kid: try context.parameters.require("kid"), caller: visit.caller)
            return self.redirect("/console/keys", visit, done: "key_revoked")
        }
    }
}
