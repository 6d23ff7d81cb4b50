import Foundation
import Logging

/// `functions/call`: a Realm app's `user.functions.NAME(args)`, run as an operator function the app exposes by name.
extension AppServicesService {
    /// Runs `name` for the access token's user. The function gets `{"name", "arguments", "app", "user": {"id", "type",
    /// "identities", "data", "custom_data"}}` (signed, with its timeout, outside any transaction) and answers
    /// `{"success": <Extended JSON>}` or `{"error": "message"}`; with `"custom_data": {…}` beside `success` it also
    /// replaces the caller's custom user data, which the next access token carries.
    public func callAppFunction(appId: String, name: String, arguments: [JSONValue], accessToken: String?,
                                caller: CallerInfo) async throws -> JSONValue {
        let app = try requireApp(appId)
        guard let accessToken else { throw LatchkeyError.accessTokenInvalid }
        let (claims, user) = try await engine.tokens.authenticatedAccess(accessToken, audience: .appServices)
        guard claims.aud == appId else { throw LatchkeyError.accessTokenInvalid }
        try await limit(.functionPerIP, caller.ip, caller: caller)
        guard app.functions.contains(name), let function = engine.functions[name] else { throw LatchkeyError.unknownFunction(name) }

        // The caller as `auth/profile` shows it, with its custom data.
        var shown = try await profile(of: user)
        shown["id"] = shown.removeValue(forKey: "user_id")
        shown["domain_id"] = nil
        shown["custom_data"] = try await reader.customData.customDocument(userId: user.id, appId: appId).map(JSONValue.object) ?? .null
        let body: JSONValue = .object(["name": .string(name), "arguments": .array(arguments), "app": .string(appId), "user": .object(shown)])
        let reason: String
        switch await function.evaluate(body) {
        case .value(let result, let beside):
            switch beside["custom_data"] {
            case .object(let document)?:
                do { try await setCustomData(document, userId: user.id, appId: appId, caller: caller, by: "function \(name)") } catch let refusal as CustomUserData.Refusal {
                    // The function's fault, not the caller's: the call fails as the function's error, and the log says why.
                    logger.warning("app function's custom_data refused", metadata: ["function": "\(name)", "app": "\(appId)", "reason": "\(refusal)"])
                    throw LatchkeyError.functionFailed("function \(name) answered custom_data over \(CustomUserData.maxBytes) bytes")
                }
            case .null?: try await setCustomData(nil, userId: user.id, appId: appId, caller: caller, by: "function \(name)")
            default: break
            }
            return result
        case .refused(let message):
            throw LatchkeyError.functionFailed(message)
        case .failed(let why):
            reason = why
        }
        logger.warning("app function failed", metadata: ["function": "\(name)", "app": "\(appId)", "reason": "\(reason)"])
        throw LatchkeyError.functionFailed("function \(name) failed")
    }
}
