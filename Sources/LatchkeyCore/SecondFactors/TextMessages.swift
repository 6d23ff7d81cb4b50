import Foundation

/// Text messages: Latchkey makes the code (and stores only its HMAC); the operator's function (`mfa.sms.function`)
/// delivers `{"to", "code", "valid_minutes", "purpose"}` and answers `{"status": "success"}`.
extension SecondFactors {
    /// The methods an account can enrol without a browser: an address (email) and, with a function to send them,
    /// text messages. An authenticator needs its secret shown, which the native API has no step for.
    var registrableMethods: [MFASettings.Method] { registrableMethods(browser: false) }

    /// What a flow can enrol: the hosted pages can also show an authenticator's secret.
    func registrableMethods(browser: Bool) -> [MFASettings.Method] {
        [MFASettings.Method.email, .sms, .totp].filter { method in
            settings.mfa.methods.contains(method) && (method != .sms || smsSender != nil) && (method != .totp || browser)
        }
    }

    var smsSender: (any OperatorFunction)? { settings.mfa.smsFunction.flatMap { engine.functions[$0] } }

    /// Sends a new code to `number` within the per-IP and per-recipient message quotas (the mail quotas: one budget
    /// for every message sent on a client's request); returns the code for the caller to store. Runs outside any
    /// transaction.
    func sendTextCode(to number: String, purpose: String, user: UserRecord, caller: CallerInfo) async throws -> String {
        guard let sender = smsSender else { throw LatchkeyError.secondFactor(.methodNotEnabled("sms")) }
        try await limit(.mailPerIP, caller.ip, caller: caller)
        try await limit(.mailPerAddress, number, caller: caller)
        let code = engine.proofs.newCode()
        let outcome = await sender.call([.object([
            "to": .string(number), "code": .string(code), "valid_minutes": .int(settings.codes.ttlSeconds / 60),
            "purpose": .string(purpose), "user_id": .string(user.id),
        ])])
        guard outcome.status == .success else {
            logger.warning("text message not delivered", metadata: ["to": "\(Self.maskPhone(number))", "reason": "\(outcome.message ?? "-")"])
            throw LatchkeyError.secondFactor(.deliveryFailed)
        }
        return code
    }

    /// A phone number as Parse Server accepts one (digits, an optional leading `+`, brackets, spaces, dots and
    /// dashes), 7 to 15 digits; normalised to `+` and digits. Nil when it is not one.
    public static func phoneNumber(_ raw: String) -> String? {
        let trimmed = raw.trimmingCharacters(in: .whitespaces)
        let allowed = Set("0123456789+()-. ")
        guard trimmed.allSatisfy({ allowed.contains($0) }), !trimmed.dropFirst().contains("+") else { return nil }
        let digits = trimmed.filter(\.isNumber)
        guard (7...15).contains(digits.count) else { return nil }
        return (trimmed.hasPrefix("+") ? "+" : "") + digits
    }
}
