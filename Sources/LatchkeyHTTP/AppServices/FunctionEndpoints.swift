import Hummingbird
import LatchkeyCore

/// `POST app/{app}/functions/call`: realm-core's `user.functions.NAME(args)` and `call_function`, with the access
/// token, `{"name", "arguments"}` in Extended JSON (passed through as it came), and the function's result answered
/// as Extended JSON.
extension AppServicesRoutes {
    struct FunctionCallBody: JSONObjectBody, Sendable {
        var name: String?
        var arguments: [JSONValue]?
        /// The Atlas service a function ran under; App Services functions here have none.
        var service: String?
    }

    func addFunctionRoutes(to group: RouterGroup<LatchkeyRequestContext>) {
        group.post("app/:app/functions/call") { request, context in
            let app = context.parameters.get("app") ?? ""
            _ = try engine.requireApp(app)
            let token = BearerToken.read(request)
            guard token != nil else { throw LatchkeyError.accessTokenInvalid }
            let body = try await request.decode(as: FunctionCallBody.self, context: context)
            guard let name = body.name, !name.isEmpty else {
                return AppServicesError.body(.badRequest, "MissingParameter", "name is required: the function to call")
            }
            let result = try await engine.callAppFunction(appId: app, name: name, arguments: body.arguments ?? [], accessToken: token,
                                                          caller: clientAddress.caller(request, context: context))
            return JSONResponse.make(.ok, value: result)
        }
    }
}
