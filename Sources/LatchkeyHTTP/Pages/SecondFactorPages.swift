import Foundation
import HTTPTypes
import Hummingbird
import LatchkeyCore

/// The second factor a client's policy asks for (issue Q) and, when the account has none, its enrolment; then the
/// consent a third-party client needs. The same flow steps as MSAL's `mfa_required` and `registration_required`.
extension InteractionPages {
    func addSecondFactorRoutes(to router: Router<LatchkeyRequestContext>) {
        post(router, "/ui/second-factor/send") { visit, interaction in
            guard case .code(let challenge, let next) = try await engine.mfaChallenge(
                continuationToken: interaction.flowToken, methodId: visit.field("method"), challengeTypes: PagesService.browserChallengeTypes,
                caller: visit.caller) else { return problem("not_possible", visit, status: .badRequest) }
            var visit = visit, interaction = interaction
            interaction.flowToken = next
            visit.interaction = interaction
            let target = challenge.channel == "totp" ? text("authenticator", visit) : challenge.targetLabel
            return codePage(visit, target: target, action: "/ui/second-factor/code", resend: nil)
        }
        post(router, "/ui/second-factor/code") { visit, interaction in
            do {
                return try await finish(try await engine.signInWithCode(continuationToken: interaction.flowToken, code: visit.field("code"),
                                                                        scope: nil, secondFactorOnly: true, caller: visit.caller),
                                        interaction, visit)
            } catch let error as LatchkeyError where Self.isWrongCode(error) {
                return codePage(visit, target: nil, action: "/ui/second-factor/code", resend: nil, error: text("wrong_code", visit))
            }
        }
        post(router, "/ui/second-factor/enrol") { visit, interaction in
            var visit = visit, interaction = interaction
            switch try await engine.registrationChallenge(continuationToken: interaction.flowToken, challengeType: "oob redirect",
                                                          target: visit.field("target"), channel: visit.field("channel"), caller: visit.caller) {
            case .code(let challenge, _, let next):
                interaction.flowToken = next
                visit.interaction = interaction
                return codePage(visit, target: challenge.targetLabel, action: "/ui/second-factor/enrol/code", resend: nil)
            case .preverified(let next):
                let enrolled = try await engine.registrationContinue(continuationToken: next, grantType: "continuation_token", code: nil,
                                                                     caller: visit.caller)
                return try await finish(try await engine.signInWithContinuationToken(continuationToken: enrolled, username: nil, scope: nil,
                                                                                     caller: visit.caller), interaction, visit)
            case .redirect: return problem("not_possible", visit, status: .badRequest)
            }
        }
        post(router, "/ui/second-factor/enrol/code") { visit, interaction in
            do {
                let enrolled = try await engine.registrationContinue(continuationToken: interaction.flowToken, grantType: "oob",
                                                                     code: visit.field("code"), caller: visit.caller)
                return try await finish(try await engine.signInWithContinuationToken(continuationToken: enrolled, username: nil, scope: nil,
                                                                                     caller: visit.caller), interaction, visit)
            } catch let error as LatchkeyError where Self.isWrongCode(error) {
                return codePage(visit, target: nil, action: "/ui/second-factor/enrol/code", resend: nil, error: text("wrong_code", visit))
            }
        }
        post(router, "/ui/second-factor/authenticator") { visit, interaction in
            let offer = try await engine.registrationBeginAuthenticator(continuationToken: interaction.flowToken, caller: visit.caller)
            var visit = visit, interaction = interaction
            interaction.flowToken = offer.continuationToken
            visit.interaction = interaction
            return render("authenticator", .ok, ["secret": offer.secret, "uri": offer.uri], visit)
        }
        post(router, "/ui/second-factor/authenticator/code") { visit, interaction in
            do {
                let (next, codes) = try await engine.registrationConfirmAuthenticator(continuationToken: interaction.flowToken,
                                                                                     code: visit.field("code"), caller: visit.caller)
                var visit = visit, interaction = interaction
                interaction.flowToken = next
                visit.interaction = interaction
                return render("recovery", .ok, ["codes": codes], visit)
            } catch let error as LatchkeyError where Self.isWrongCode(error) {
                // The key was shown once; the app has it: only the code is asked again.
                return render("authenticator", .badRequest, ["error": text("wrong_code", visit)], visit)
            }
        }
        post(router, "/ui/second-factor/done") { visit, interaction in
            try await finish(try await engine.signInWithContinuationToken(continuationToken: interaction.flowToken, username: nil, scope: nil,
                                                                          caller: visit.caller), interaction, visit)
        }
        post(router, "/ui/consent") { visit, interaction in
            guard let signedIn = try await engine.browserSession(cookie: visit.sessionCookie) else {
                return try await proceed(interaction, visit)  // signed out meanwhile: sign in again
            }
            guard visit.field("decision") == "allow" else { return redirect(engine.declineConsent(interaction), visit) }
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
