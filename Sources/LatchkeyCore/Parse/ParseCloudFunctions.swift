import Foundation

/// Parse cloud functions: `POST functions/<name>` runs an operator function from `functions:` that the app lists
/// under `cloud_functions`. The function gets Parse's webhook body and answers `{"success": <JSON>}` or
/// `{"error": "message"}`.
extension ParseService {
    /// Runs `name` for `app`. `user` is the caller's user as the dialect shows it to its owner; `headers` are the
    /// request's headers without credentials. Returns the function's `success` value; an `error` answer is
    /// `.functionFailed` with the function's message, and a timeout or nonsense is `.functionFailed` with a generic
    /// one (the reason goes to the log).
    public func runParseFunction(app: ParseApp, name: String, params: [String: JSONValue], actor: ParseActor, user: JSONValue?,
                                 installationId: String?, headers: [String: String], caller: CallerInfo) async throws -> JSONValue {
        guard app.cloudFunctions.contains(name), let function = engine.functions[name] else { throw LatchkeyError.unknownFunction(name) }
        try await limit(.functionPerIP, caller.ip, caller: caller)
        var body: [String: JSONValue] = [
            "functionName": .string(name), "params": .object(params), "master": .bool(actor.isMaster),
            "ip": .string(caller.ip ?? ""), "headers": .object(headers.mapValues { .string($0) }),
        ]
        if let user { body["user"] = user }
        if let installationId { body["installationId"] = .string(installationId) }
        let reason: String
        switch await function.evaluate(.object(body)) {
        case .value(let result, _): return result
        case .refused(let message): throw LatchkeyError.functionFailed(message)
        case .failed(let why): reason = why
        }
        logger.warning("cloud function failed", metadata: ["function": "\(name)", "app": "\(app.id)", "reason": "\(reason)"])
        throw LatchkeyError.functionFailed("Cloud function \(name) failed.")
    }
}
