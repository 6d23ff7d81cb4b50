import Hummingbird
import LatchkeyCore

/// Health probes, the favicon and the opt-in test mailbox.
struct OperatorRoutes: Sendable {
    let engine: any OperatorSurface
    let testingMailbox: TestingMailbox?

    func addRoutes(to router: Router<LatchkeyRequestContext>) {
        let live = JSONResponse.Prepared(["status": "ok"])
        router.get("/health/live") { _, _ in live.response() }
        Favicon.addRoute(to: router)
        router.get("/health/ready") { _, _ in
            await engine.store.isReady()
                ? JSONResponse.ok(["status": "ready"])
                : JSONResponse.make(.serviceUnavailable, ["status": "not_ready"])
        }
        guard let mailbox = testingMailbox else { return }
        router.get("/testing/v1/mail") { request, _ in
            guard let to = request.uri.queryParameters["to"].map(String.init), !to.isEmpty else {
                return JSONResponse.make(.badRequest, ["error": "invalid_request", "error_description": "to is required"])
            }
            let mails: [JSONValue] = mailbox.messages(to: to).map { m in
                .object(["to": .string(m.to), "subject": .string(m.subject), "text": .string(m.text), "html": .string(m.html),
                         "kind": .string(m.kind.rawValue), "created_at": .int(Int(m.createdAt.timeIntervalSince1970))])
            }
            return JSONResponse.ok(["messages": .array(mails)])
        }
    }
}
