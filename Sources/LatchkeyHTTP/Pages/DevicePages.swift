import Foundation
import HTTPTypes
import Hummingbird
import LatchkeyCore

/// `/ui/device`: where a person types the code a device shows (RFC 8628 §3.3), or finds it filled in from the
/// device's `verification_uri_complete` (and still presses Continue: a link alone never approves anything). Then the
/// visit is an ordinary one, sign-in with every factor and the confirmation, ending at `/ui/device/done`.
extension InteractionPages {
    func addDeviceRoutes(to router: Router<LatchkeyRequestContext>) {
        router.get(RouterPath(Tokens.devicePagePath)) { request, context in
            let visit = visit(request, context)
            return devicePage(visit, userCode: request.uri.queryParameters["user_code"].map(String.init), status: .ok)
        }
        router.post(RouterPath(Tokens.devicePagePath)) { request, context in
            let form = try await request.decodeForm(as: PageForm.self, context: context).fields
            var visit = visit(request, context, form: form)
            guard !visit.newCSRFCookie, engine.csrfTokenMatches(form["csrf"], cookie: visit.csrfCookie) else {
                return problem("csrf", visit, status: .forbidden)
            }
            return await step({
                guard let interaction = try await engine.deviceVisit(userCode: form["user_code"], csrfCookie: visit.csrfCookie,
                                                                     caller: visit.caller) else {
                    return devicePage(visit, userCode: form["user_code"], error: text("device_code_invalid", visit), status: .badRequest)
                }
                visit.interaction = interaction
                visit.caller.clientId = interaction.request.clientId
                return try await proceed(interaction, visit)
            }, visit: visit)
        }
        router.get(RouterPath(Tokens.devicePagePath + "/done")) { request, context in
            let visit = visit(request, context)
            let outcome = request.uri.queryParameters["result"].flatMap { DeviceOutcome(rawValue: String($0)) } ?? .gone
            return pages.render("message", .ok, ["title": text("device_\(outcome.rawValue)_title", visit),
                                                 "message": text("device_\(outcome.rawValue)", visit), "isError": outcome == .gone],
                                language: visit.language, cookies: visit.cookies)
        }
    }

    private func devicePage(_ visit: PageVisit, userCode: String?, error: String? = nil, status: HTTPResponse.Status) -> Response {
        var context: [String: Any] = ["userCode": String((userCode ?? "").prefix(16))]
        if let error { context["error"] = error }
        return render("device", status, context, visit)
    }
}
