import Foundation
import HTTPTypes
import Hummingbird
import LatchkeyCore

/// Sign-up (the address proved by a mailed code, the schema's attributes asked for) and password reset by code.
/// Both end signed in, through the same flows as the native API.
extension InteractionPages {
    func addAccountRoutes(to router: Router<LatchkeyRequestContext>) {
        router.get("/ui/sign-up") { request, context in
            let visit = visit(request, context)
            guard visit.interaction != nil else { return problem("expired", visit, status: .badRequest) }
            return signUpPage(visit)
        }
        post(router, "/ui/sign-up") { visit, interaction in
            let email = visit.field("email")
            var attributes: [String: JSONValue] = [:]
            for attribute in engine.settings.attributes {
                guard let value = visit.field("attr.\(attribute.name)") else {
                    if attribute.kind == .boolean { attributes[attribute.name] = .bool(false) }  // an unticked box sends nothing
                    continue
                }
                switch attribute.kind {
                case .string: attributes[attribute.name] = .string(value)
                case .boolean: attributes[attribute.name] = .bool(["true", "on", "yes", "1"].contains(value.lowercased()))
                case .number: attributes[attribute.name] = Double(value).map(JSONValue.double) ?? .string(value)
                }
            }
            do {
                let (step, next) = try await engine.pageSignUp(email: email, password: visit.field("password"), attributes: attributes,
                                                               visit: interaction, caller: visit.caller)
                return page(step, visit, next, code: "/ui/sign-up/code", resend: "/ui/sign-up/code/resend")
            } catch let error as LatchkeyError where Self.status(error) == .badRequest {
                var message = Self.words(for: error, settings: engine.settings.passwords) { text($0, visit) }
                var invalid: Set<String> = []
                if case .invalidAttributes(let names) = error {
                    message += " " + names.joined(separator: ", ")
                    invalid = Set(names)
                }
                return signUpPage(visit, email: email, error: message, field: Self.field(of: error), invalidAttributes: invalid)
            }
        }
        post(router, "/ui/sign-up/code") { visit, interaction in
            do {
                return try await afterStep(try await engine.pageSignUpCode(visit.field("code"), visit: interaction, caller: visit.caller),
                                      visit, interaction)
            } catch let error as LatchkeyError where Self.isWrongCode(error) {
                return codePage(visit, action: "/ui/sign-up/code", resend: "/ui/sign-up/code/resend", error: text("wrong_code", visit))
            }
        }
        post(router, "/ui/sign-up/code/resend") { visit, interaction in
            let (step, next) = try await engine.pageResendCode(visit: interaction, caller: visit.caller)
            return page(step, visit, next, code: "/ui/sign-up/code", resend: "/ui/sign-up/code/resend")
        }
        router.get("/ui/reset") { request, context in
            let visit = visit(request, context)
            guard visit.interaction != nil else { return problem("expired", visit, status: .badRequest) }
            return render("reset", .ok, ["email": visit.interaction?.request.loginHint ?? ""], visit)
        }
        post(router, "/ui/reset") { visit, interaction in
            do {
                let (step, next) = try await engine.pageStartReset(email: visit.field("email"), visit: interaction, caller: visit.caller)
                return page(step, visit, next, code: "/ui/reset/code", resend: "/ui/reset/code/resend", askPassword: true)
            } catch let error as LatchkeyError where Self.status(error) == .badRequest {
                return render("reset", .badRequest, ["email": visit.field("email") ?? "", "error": text(Self.explain(error), visit)], visit)
            }
        }
        post(router, "/ui/reset/code") { visit, interaction in
            do {
                return try await afterStep(try await engine.pageFinishReset(code: visit.field("code"), newPassword: visit.field("password"),
                                                                       visit: interaction, caller: visit.caller), visit, interaction)
            } catch let error as LatchkeyError where Self.status(error) == .badRequest && Self.explain(error) != "expired" {
                return codePage(visit, action: "/ui/reset/code", resend: "/ui/reset/code/resend", askPassword: true,
                                error: Self.words(for: error, settings: engine.settings.passwords) { text($0, visit) },
                                passwordInvalid: Self.field(of: error) == "password")
            }
        }
        post(router, "/ui/reset/code/resend") { visit, interaction in
            let (step, next) = try await engine.pageResendCode(visit: interaction, caller: visit.caller)
            return page(step, visit, next, code: "/ui/reset/code", resend: "/ui/reset/code/resend", askPassword: true)
        }
    }

    /// The sign-up page; after a refusal, focus goes to the field it is about (`aria-describedby` ties the words to it).
    func signUpPage(_ visit: PageVisit, email: String? = nil, error: String? = nil, field: String? = nil,
                    invalidAttributes: Set<String> = []) -> Response {
        let minLength = engine.settings.passwords.minLength
        let firstInvalid = engine.settings.attributes.first { invalidAttributes.contains($0.name) }?.name
        var context: [String: Any] = [
            "email": email ?? visit.interaction?.request.loginHint ?? "", "minLength": minLength,
            "passwordRule": text("password_rule", visit).replacingOccurrences(of: "{count}", with: String(minLength)),
            "emailInvalid": field == "email", "passwordInvalid": field == "password",
            "focusEmail": field == nil || field == "email" || (field == "attributes" && firstInvalid == nil),
            "attributes": engine.settings.attributes.map { attribute -> [String: Any] in
                let type = switch attribute.kind {
                case .string: "text"
                case .number: "number"
                case .boolean: "checkbox"
                }
                return ["name": attribute.name, "label": attribute.label(in: visit.language), "inputType": type,
                        "required": attribute.required && attribute.kind != .boolean,
                        "invalid": invalidAttributes.contains(attribute.name), "focus": attribute.name == firstInvalid]
            },
        ]
        if let error { context["error"] = error }
        return render("sign_up", error == nil ? .ok : .badRequest, context, visit)
    }
}
