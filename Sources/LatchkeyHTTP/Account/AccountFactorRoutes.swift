import Foundation
import HTTPTypes
import Hummingbird
import LatchkeyCore

/// Second factors at the account page: an authenticator (its key as text and as a QR code drawn here), an address or
/// a phone number proven by a code, removal, and new recovery codes (shown once).
extension AccountPage {
    func addFactorRoutes(to router: Router<LatchkeyRequestContext>) {
        post(router, "/ui/account/factors/authenticator", section: "factors") { visit, holder in
            authenticatorPage(try await engine.offerAuthenticator(holder), visit)
        }
        post(router, "/ui/account/factors/authenticator/code", section: "factors") { visit, holder in
            do {
                let (codes, cookie) = try await engine.confirmAuthenticator(holder, sealed: visit.field("offer"), code: visit.field("code"),
                                                                            caller: visit.caller)
                return recoveryPage(codes, raised(visit, cookie))
            } catch let error as LatchkeyError where InteractionPages.isWrongCode(error) {
                return authenticatorPage(try engine.openAuthenticatorOffer(holder, sealed: visit.field("offer")), visit, error: text("wrong_code", visit))
            }
        }
        post(router, "/ui/account/factors/code", section: "factors") { visit, holder in
            let kind = try Self.codeKind(visit.field("kind"))
            let target = try await engine.startCodeFactor(holder, kind: kind, target: visit.field("target"), caller: visit.caller)
            return codePage(action: "/ui/account/factors/code/confirm", target: target, shown: Self.masked(target, kind), kind: kind.rawValue, visit)
        }
        post(router, "/ui/account/factors/code/confirm", section: "factors") { visit, holder in
            let kind = try Self.codeKind(visit.field("kind"))
            let target = visit.field("target") ?? ""
            let cookie: String?
            do {
                cookie = try await engine.confirmCodeFactor(holder, kind: kind, target: target, code: visit.field("code"), caller: visit.caller)
            } catch let error as LatchkeyError where InteractionPages.isWrongCode(error) {
                return codePage(action: "/ui/account/factors/code/confirm", target: target, shown: Self.masked(target, kind), kind: kind.rawValue,
                                visit, error: text("wrong_code", visit))
            }
            return done("factor_added", section: "factors", raised(visit, cookie))
        }
        post(router, "/ui/account/factors/remove", section: "factors") { visit, holder in
            guard let kind = visit.field("kind").flatMap(SecondFactorRecord.Kind.init(rawValue:)), kind != .recovery else {
                throw AccountPageRefusal.notFound
            }
            try await engine.removeFactor(holder, kind: kind, caller: visit.caller)
            return done("factor_removed", section: "factors", visit)
        }
        post(router, "/ui/account/factors/recovery", section: "factors") { visit, holder in
            recoveryPage(try await engine.newRecoveryCodes(holder, caller: visit.caller), visit)
        }
    }

    static func codeKind(_ raw: String?) throws -> SecondFactorRecord.Kind {
        switch raw {
        case "email": .email
        case "sms": .sms
        default: throw AccountPageRefusal.notFound
        }
    }

    static func masked(_ target: String, _ kind: SecondFactorRecord.Kind) -> String {
        kind == .sms ? SecondFactors.maskPhone(target) : EmailAddress.mask(target)
    }

    func authenticatorPage(_ offer: AuthenticatorOfferForm, _ visit: PageVisit, error: String? = nil) -> Response {
        var context: [String: Any] = ["secret": offer.secret, "uri": offer.uri, "offer": offer.sealed]
        if let svg = QRCode(text: offer.uri)?.svgDataURI { context["qr"] = svg }
        if let error { context["error"] = error }
        return render("account_authenticator", error == nil ? .ok : .badRequest, context, visit)
    }

    func recoveryPage(_ codes: [String], _ visit: PageVisit) -> Response {
        render("account_recovery", .ok, ["codes": codes], visit)
    }
}
