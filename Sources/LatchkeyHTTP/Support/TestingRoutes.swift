import Foundation
import HTTPTypes
import Hummingbird
import LatchkeyCore
import NIOCore

/// The testing API under `/testing/v1/` (test mode only, docs/testing.md): the ready apps' ids, the clock, wiping the
/// data, making accounts in the state a test needs. JSON in and out; a refusal is `{"error", "error_description"}`.
struct TestingRoutes: Sendable {
    let engine: any TestingSurface
    /// `GET /testing/v1/config`: the ready apps, as test mode made them.
    let config: JSONValue
    let mailbox: TestingMailbox?
    let captured: CapturedProofs

    /// A bulk `POST /users` may carry ten thousand accounts.
    static let maxBody = 32 * 1024 * 1024

    /// The API: method, path under `/testing/v1`, handler.
    var routes: [NamedRoute] {
        [
            NamedRoute(.get, "config", { _, _ in JSONResponse.make(.ok, value: config) }),
            NamedRoute(.get, "clock", { _, _ in clock() }),
            NamedRoute(.post, "clock", advanceClock),
            NamedRoute(.delete, "clock", resetClock),
            NamedRoute(.delete, "data", wipe),
            NamedRoute(.get, "codes", { request, _ in proofs(request, channel: nil) }),
            NamedRoute(.get, "sms", { request, _ in proofs(request, channel: "sms") }),
            NamedRoute(.post, "users", createUsers),
            NamedRoute(.post, "users/:user/:state", setUserState),
            NamedRoute(.post, "export", exportState),
            NamedRoute(.post, "import", importState),
        ]
    }

    func addRoutes(to router: Router<LatchkeyRequestContext>) {
        let api = router.group("/testing/v1").add(middleware: TestingGuard(config: config))
        api.add(routes)
    }

    private func advanceClock(_ request: Request, _: LatchkeyRequestContext) async throws -> Response {
        guard case .object(let body)? = try await json(request), let seconds = body["advance_seconds"]?.doubleValue, seconds >= 0,
              seconds <= 10 * 365 * 86400 else {
            return refuse("advance_seconds must be a number of seconds from 0 to ten years (the clock only moves forward)")
        }
        engine.advanceClock(seconds: seconds)
        return clock()
    }

    private func resetClock(_: Request, _: LatchkeyRequestContext) async throws -> Response {
        engine.resetClock()
        return clock()
    }

    private func wipe(_ request: Request, _: LatchkeyRequestContext) async throws -> Response {
        let keep = request.uri.queryParameters["keep_accounts"].map { $0 == "true" || $0 == "1" } ?? false
        let started = ContinuousClock.now
        try await engine.wipe(keepAccounts: keep)
        if !keep { mailbox?.clear(); captured.clear() }
        let elapsed = ContinuousClock.now - started
        return JSONResponse.ok(["wiped": .string(keep ? "sessions and flows" : "everything"),
                                "milliseconds": .double(Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1000)])
    }

    /// The state as one document: what `import` (or `serve --testing --import FILE`) takes back.
    private func exportState(_: Request, _: LatchkeyRequestContext) async throws -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return Response(status: .ok, headers: [.contentType: "application/json", .cacheControl: "no-store"],
                        body: .init(byteBuffer: ByteBuffer(bytes: try encoder.encode(try await engine.exportState()))))
    }

    private func importState(_ request: Request, _: LatchkeyRequestContext) async throws -> Response {
        var request = request
        let buffer = try await request.collectBody(upTo: Self.maxBody)
        let state: TestingState
        do { state = try JSONDecoder().decode(TestingState.self, from: Data(buffer: buffer)) } catch {
            return refuse("the body is a document of POST /testing/v1/export: \(TestingState.describe(error))")
        }
        do {
            let done = try await engine.importState(state)
            return JSONResponse.ok(["users": .int(done.users), "second_factors": .int(done.secondFactors), "roles": .int(done.roles),
                                    "problems": .array(done.problems.map(JSONValue.string))])
        } catch let refusal as TestingRefusal {
            return refuse(refusal)
        }
    }

    private func createUsers(_ request: Request, _: LatchkeyRequestContext) async throws -> Response {
        let body = try await json(request)
        let many: Bool, entries: [JSONValue]
        switch body {
        case .array(let items)?: (many, entries) = (true, items)
        case .object?: (many, entries) = (false, [body!])
        default: return refuse("the body is one account as a JSON object, or a JSON array of them")
        }
        let specs: [TestAccount]
        do { specs = try entries.enumerated().map { try Self.account($1, at: many ? $0 : nil) } } catch let refusal as TestingRefusal {
            return refuse(refusal)
        }
        do {
            let made = try await engine.createUsers(specs).map { JSONValue.object(["id": .string($0.id), "object_id": .string($0.objectId)]) }
            return JSONResponse.make(.created, value: many ? .array(made) : made[0])
        } catch let refusal as TestingRefusal {
            return refuse(refusal)
        } catch let error as LatchkeyError {
            switch error {
            case .emailTaken, .usernameTaken: return refuse("an account holds that email or username already", status: .conflict)
            case .invalidEmail(let problem): return refuse("email is not a valid address: \(problem)")
            case .invalidUsername: return refuse("username must be 1 to 128 characters, no control characters, no spaces at its ends")
            case .invalidAttributes(let names): return refuse("attributes not valid for the schema: \(names.joined(separator: ", "))")
            // Anything else in the engine's words: its reason, with its class's status.
            default: return refuse(error.reason.words, status: HTTPResponse.Status(code: error.errorClass.httpStatus))
            }
        }
    }

    private func setUserState(_: Request, _ context: LatchkeyRequestContext) async throws -> Response {
        guard let state = TestAccountState(rawValue: context.parameters.get("state") ?? "") else {
            return refuse("the state is one of \(TestAccountState.allCases.map(\.rawValue).joined(separator: ", "))", status: .notFound)
        }
        do {
            let user = try await engine.setState(try context.parameters.requireUser(), state)
            return JSONResponse.ok(["id": .string(user.id), "status": .string(user.status.rawValue), "email_verified": .bool(user.emailVerified),
                                    "locked": .bool((user.lockedUntil ?? .distantPast) > engine.now())])
        } catch LatchkeyEngine.AdminError.userNotFound {
            return refuse("no account with that id, email or username", status: .notFound)
        }
    }

    /// The codes and links sent (to `?to=`, else to anyone), newest first, a page of `?limit=` (100, at most 1000)
    /// before the cursor `?before=` (the last page's `next`); `channel`: only text messages.
    private func proofs(_ request: Request, channel: String?) -> Response {
        let query = request.uri.queryParameters
        let to = query["to"].map(String.init).flatMap { $0.isEmpty ? nil : $0 }
        let limitText = query["limit"].map(String.init), beforeText = query["before"].map(String.init)
        guard let limit = limitText.map({ Int($0) }) ?? 100, (1...1000).contains(limit) else {
            return refuse("limit must be a whole number from 1 to 1000")
        }
        let before = beforeText.flatMap { Int($0) }
        if beforeText != nil, (before ?? 0) < 1 { return refuse("before must be the next value of an earlier page") }
        var page = captured.page(to: to, before: before, limit: channel == nil ? limit : .max)
        if let channel {  // text messages are few: filtered, then cut to the page
            let messages = page.entries.filter { $0.channel == channel }
            page = (Array(messages.prefix(limit)), messages.count > limit ? messages[limit - 1].sequence : nil)
        }
        let entries = page.entries.map { entry -> JSONValue in
            var fields: [String: JSONValue] = ["purpose": .string(entry.purpose), "channel": .string(entry.channel), "to": .string(entry.to),
                                               "sent_at": .string(entry.sentAt.ISO8601Format()), "expires_at": .string(entry.expiresAt.ISO8601Format()),
                                               "used": .bool(entry.used)]
            for (name, value) in [("code", entry.code), ("link", entry.link), ("token", entry.token), ("token_id", entry.tokenId),
                                  ("dialect", entry.dialect), ("client_id", entry.clientId)] {
                fields[name] = value.map(JSONValue.string) ?? .null
            }
            return .object(fields)
        }
        return JSONResponse.ok([channel == nil ? "codes" : "messages": .array(entries), "next": page.next.map { .int($0) } ?? .null])
    }

    private func clock() -> Response {
        JSONResponse.ok(["now": .string(engine.now().ISO8601Format()), "offset_seconds": .double(engine.clockOffsetSeconds)])
    }

    private func json(_ request: Request) async throws -> JSONValue? {
        var request = request
        let buffer = try await request.collectBody(upTo: Self.maxBody)
        return try? JSONDecoder().decode(JSONValue.self, from: Data(buffer: buffer))
    }

    private func refuse(_ refusal: TestingRefusal) -> Response {
        switch refusal { case .badField(let words): refuse(words) }
    }

    private func refuse(_ description: String, status: HTTPResponse.Status = .badRequest) -> Response {
        JSONResponse.make(status, ["error": .string(status == .notFound ? "not_found" : status == .conflict ? "conflict" : "invalid_request"),
                                   "error_description": .string(description)])
    }

    /// One account of the body; `index` names it in a refusal when the body is a list.
    static func account(_ value: JSONValue, at index: Int?) throws -> TestAccount {
        let at = index.map { "[\($0)] " } ?? ""
        guard case .object(let fields) = value else { throw TestingRefusal.badField("\(at)an account is a JSON object") }
        func string(_ name: String) throws -> String? {
            switch fields[name] {
            case nil, .null?: return nil
            case .string(let text)?: return text
            default: throw TestingRefusal.badField("\(at)\(name) must be a string")
            }
        }
        var account = TestAccount(email: try string("email"), username: try string("username"), password: try string("password"))
        if let verified = fields["email_verified"] {
            guard case .bool(let flag) = verified else { throw TestingRefusal.badField("\(at)email_verified must be true or false") }
            account.emailVerified = flag
        }
        if let attributes = fields["attributes"] {
            guard case .object(let map) = attributes else { throw TestingRefusal.badField("\(at)attributes must be an object") }
            account.attributes = map
        }
        for identity in try list(fields["identities"], "identities", at) {
            guard case .object(let item) = identity, let provider = item["provider"]?.stringValue, let subject = item["subject"]?.stringValue,
                  !provider.isEmpty, !subject.isEmpty else { throw TestingRefusal.badField("\(at)identities: each is {\"provider\", \"subject\"}") }
            account.identities.append((provider, subject))
        }
        for factor in try list(fields["second_factors"], "second_factors", at) {
            guard case .object(let item) = factor else { throw TestingRefusal.badField("\(at)second_factors: each is an object") }
            switch item["kind"]?.stringValue {
            case "totp"?:
                guard let secret = item["secret"]?.stringValue else { throw TestingRefusal.badField("\(at)second_factors: totp needs its secret (Base32)") }
                account.authenticatorSecret = secret
            case "email"?:
                guard let target = item["target"]?.stringValue else { throw TestingRefusal.badField("\(at)second_factors: email needs its target") }
                account.emailFactors.append(target)
            default: throw TestingRefusal.badField("\(at)second_factors: kind is totp or email")
            }
        }
        account.roles = try list(fields["roles"], "roles", at).map { role in
            guard let name = role.stringValue else { throw TestingRefusal.badField("\(at)roles: each is a string") }
            return name
        }
        return account
    }

    private static func list(_ value: JSONValue?, _ name: String, _ at: String) throws -> [JSONValue] {
        switch value {
        case nil, .null?: return []
        case .array(let items)?: return items
        default: throw TestingRefusal.badField("\(at)\(name) must be a list")
        }
    }
}
