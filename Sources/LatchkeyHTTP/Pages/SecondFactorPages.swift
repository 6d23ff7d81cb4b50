import Foundation
import HTTPTypes
import Hummingbird
import LatchkeyCore

/// The second factor a client's policy asks for (issue Q) and, when the account has none, its enrolment; then the
/// consent a third-party client needs. The same flow steps as MSAL's `mfa_required` and `registration_required`.
extension InteractionPages {
    func addSecondFactorRoutes(to router: Router<LatchkeyRequestContext>) {
        post(router, "/ui/second-factor/send") { visit, interaction in
            let (step, next) = try await engine.pageSendSecondFactor(methodId: visit.field("method"), visit: interaction, caller: visit.caller)
            return page(step, visit, next, code: "/ui/second-factor/code", resend: "/ui/second-factor/code/resend")
        }
        post(router, "/ui/second-factor/code/resend") { visit, interaction in
            let (step, next) = try await engine.pageResendCode(visit: interaction, caller: visit.caller)
            return page(step, visit, next, code: "/ui/second-factor/code", resend: "/ui/second-factor/code/resend")
        }
        post(router, "/ui/second-factor/code") { visit, interaction in
            do {
                return try await afterStep(try await engine.pageSecondFactorCode(visit.field("code"), visit: interaction, caller: visit.caller),
                                      visit, interaction)
            } catch let error as LatchkeyError where Self.isWrongCode(error) {
                return codePage(visit, action: "/ui/second-factor/code", resend: "/ui/second-factor/code/resend", error: text("wrong_code", visit))
            }
        }
        post(router, "/ui/second-factor/enrol") { visit, interaction in
            let (step, next) = try await engine.pageEnrol(target: visit.field("target"), channel: visit.field("channel"), visit: interaction,
                                                          caller: visit.caller)
            if case .finished = step { return try await afterStep(step, visit, next) }
            return page(step, visit, next, code: "/ui/second-factor/enrol/code", resend: "/ui/second-factor/enrol/code/resend")
        }
        post(router, "/ui/second-factor/enrol/code/resend") { visit, interaction in
            let (step, next) = try await engine.pageResendCode(visit: interaction, caller: visit.caller)
            return page(step, visit, next, code: "/ui/second-factor/enrol/code", resend: "/ui/second-factor/enrol/code/resend")
        }
        post(router, "/ui/second-factor/enrol/code") { visit, interaction in
            do {
                return try await afterStep(try await engine.pageEnrolCode(visit.field("code"), visit: interaction, caller: visit.caller),
                                      visit, interaction)
            } catch let error as LatchkeyError where Self.isWrongCode(error) {
                return codePage(visit, action: "/ui/second-factor/enrol/code", resend: "/ui/second-factor/enrol/code/resend",
                                error: text("wrong_code", visit))
            }
        }
        post(router, "/ui/second-factor/authenticator") { visit, interaction in
            let (step, next) = try await engine.pageBeginAuthenticator(visit: interaction, caller: visit.caller)
            return page(step, visit, next)
        }
        post(router, "/ui/second-factor/authenticator/code") { visit, interaction in
            do {
                let (step, next) = try await engine.pageConfirmAuthenticator(visit.field("code"), visit: interaction, caller: visit.caller)
                return page(step, visit, next)
            } catch let error as LatchkeyError where Self.isWrongCode(error) {
                // The key was shown once; the app has it: only the code is asked again.
                return render("authenticator", .badRequest, ["error": text("wrong_code", visit)], visit)
            }
        }
        post(router, "/ui/second-factor/done") { visit, interaction in
            try await afterStep(try await engine.pageFinishEnrolment(visit: interaction, caller: visit.caller), visit, interaction)
        }
        post(router, "/ui/consent") { visit, interaction in
            guard let signedIn = try await engine.browserSession(cookie: visit.sessionCookie) else {
                return try await proceed(interaction, visit)  // signed out meanwhile: sign in again
            }
            guard visit.field("decision") == "allow" else { return redirect(try await engine.declineConsent(interaction, caller: visit.caller), visit) }
            try await engine.grantConsent(interaction, userId: signedIn.session.userId, caller: visit.caller)
            return try await proceed(interaction, visit, consentGiven: true, signedIn: signedIn)
        }
    }

    func secondFactorPage(_ methods: [AuthMethod], passkey: Bool = false, _ visit: PageVisit) -> Response {
        render("second_factor", .ok, ["passkey": passkey, "methods": methods.map { method -> [String: String] in
            let label = switch method.channel {
            case "email": "\(text("code_to_email", visit)) \(method.loginHint ?? "")"
            case "sms": "\(text("code_to_phone", visit)) \(method.loginHint ?? "")"
            default: text("authenticator", visit)
            }
            return ["id": method.id, "label": label]
        }], visit)
    }

    func enrolPage(_ methods: [AuthMethod], _ visit: PageVisit, error: String? = nil) -> Response {
        var context: [String: Any] = ["methods": methods.filter { $0.channel != "totp" }.map { method -> [String: String] in
            method.channel == "email"
                ? ["id": "email", "label": text("email", visit), "inputType": "email", "value": ""]
                : ["id": "sms", "label": text("phone_number", visit), "inputType": "tel", "value": ""]
        }, "authenticator": methods.contains { $0.channel == "totp" }]
        if let error { context["error"] = error }
        return render("enrol", error == nil ? .ok : .badRequest, context, visit)
    }
}
