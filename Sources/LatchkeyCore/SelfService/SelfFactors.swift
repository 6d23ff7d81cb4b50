import Foundation

/// An authenticator offered at the account page: its secret sealed for the form (never stored until confirmed),
/// bound to the account, expiring with the code policy.
public struct AuthenticatorOfferForm: Sendable {
    public var secret: String
    /// Posted back with the first code.
    public var sealed: String
    public var uri: String
}

/// Second factors at the account page: add an authenticator (the secret as text and as a QR code), an address or a
/// phone number (proven by a code sent to it), remove one, and new recovery codes. All need a recent sign-in.
extension SelfService {
    private struct SealedOffer: Codable { var userId: String; var key: [UInt8]; var expiresAt: Date }

    public func offerAuthenticator(_ holder: AccountHolder) async throws -> AuthenticatorOfferForm {
        try await requireAssurance(.add(.secondFactor), holder)
        try requireMethod(.totp)
        let key = SecureRandom.bytes(20)
        let offer = SealedOffer(userId: holder.user.id, key: key, expiresAt: time.now() + Double(settings.codes.ttlSeconds))
        let sealed = Base64URL.encode(keys.secondFactor.seal(Array((try? JSONEncoder().encode(offer)) ?? Data())))
        let secret = Base32.encode(key)
        return AuthenticatorOfferForm(secret: secret, sealed: sealed,
                                      uri: TOTP.provisioningURI(secret: secret, account: holder.user.email ?? holder.user.displayName,
                                                                issuer: settings.mfa.totpIssuer))
    }

    /// The offer's secret again (the page shows it while the code is asked), when the offer is this account's and live.
    public func openAuthenticatorOffer(_ holder: AccountHolder, sealed: String?) throws -> AuthenticatorOfferForm {
        let key = try offeredKey(holder, sealed: sealed)
        let secret = Base32.encode(key)
        return AuthenticatorOfferForm(secret: secret, sealed: sealed ?? "",
                                      uri: TOTP.provisioningURI(secret: secret, account: holder.user.email ?? holder.user.displayName,
                                                                issuer: settings.mfa.totpIssuer))
    }

    /// Enrols the offered authenticator with its first code; returns the new recovery codes (shown once) and the
    /// browser session's new cookie (its sign-in now counts the authenticator).
    public func confirmAuthenticator(_ holder: AccountHolder, sealed: String?, code: String?,
                                     caller: CallerInfo) async throws -> (recoveryCodes: [String], cookie: String?) {
        try await requireAssurance(.add(.secondFactor), holder)
        let caller = CallerInfo.selfService(caller)
        let key = try offeredKey(holder, sealed: sealed)
        let step = try await engine.factors.checkNewAuthenticatorCode(code, key: key, user: holder.user, caller: caller)
        return try await transaction { tx in
            let codes = try await self.engine.factors.enrolAuthenticator(key, step: step, for: try await self.current(holder, in: tx),
                                                                         caller: caller, in: tx)
            return (codes, try await self.raise(holder.session, adding: .totp, in: tx))
        }
    }

    private func offeredKey(_ holder: AccountHolder, sealed: String?) throws -> [UInt8] {
        guard let sealed, sealed.utf8.count <= 1024, let bytes = Base64URL.decode(sealed), let plain = keys.secondFactor.open(bytes),
              let offer = try? JSONDecoder().decode(SealedOffer.self, from: Data(plain)), offer.userId == holder.user.id,
              offer.expiresAt > time.now() else { throw AccountPageRefusal.offerExpired }
        return offer.key
    }

    private func codeFactorName(_ user: UserRecord, _ kind: SecondFactorRecord.Kind) -> String { "account-factor-\(kind.rawValue):\(user.id)" }

    /// Sends a code to a new second-factor address or phone number; returns the target as stored.
    public func startCodeFactor(_ holder: AccountHolder, kind: SecondFactorRecord.Kind, target raw: String?, caller: CallerInfo) async throws -> String {
        try await requireAssurance(.add(.secondFactor), holder)
        let caller = CallerInfo.selfService(caller)
        try requireMethod(kind)
        let code: String, target: String
        switch kind {
        case .email:
            target = try engine.accounts.requireEmail(raw)
            code = try await mailCode(.secondFactorCode, to: target, holder, caller: caller)
        case .sms:
            guard let number = SecondFactors.phoneNumber(raw ?? "") else { throw LatchkeyError.secondFactor(.invalidContact) }
            target = number
            code = try await engine.factors.sendTextCode(to: number, purpose: "enrol", user: holder.user, caller: caller)
        case .totp, .recovery:
            throw LatchkeyError.secondFactor(.methodNotEnabled(kind.rawValue))
        }
        try await engine.proofs.savePendingCode(code, name: codeFactorName(holder.user, kind), target: target, channel: kind.rawValue,
                                                clientId: Self.clientId, user: holder.user)
        return target
    }

    /// Enrols the address or number the code reached; returns the browser session's new cookie (as for an authenticator).
    public func confirmCodeFactor(_ holder: AccountHolder, kind: SecondFactorRecord.Kind, target: String?, code: String?,
                                  caller: CallerInfo) async throws -> String? {
        try await requireAssurance(.add(.secondFactor), holder)
        let caller = CallerInfo.selfService(caller)
        if let wrong = try await engine.proofs.redeemPendingCode(name: codeFactorName(holder.user, kind), target: target, code: code) { throw wrong }
        return try await transaction { tx in
            let user = try await self.current(holder, in: tx)
            let factors = try await tx.secondFactors.secondFactors(userId: user.id)
            guard !factors.contains(where: { $0.kind == kind && $0.target == target }) else { throw LatchkeyError.secondFactor(.alreadyEnrolled) }
            try await self.engine.factors.enrol(SecondFactorRecord(id: SecureRandom.uuidString(), userId: user.id, kind: kind, target: target,
                                                                   createdAt: self.time.now()), for: user, caller: caller, in: tx)
            return try await self.raise(holder.session, adding: kind, in: tx)
        }
    }

    /// Removes the account's factors of one kind (the authenticator takes its recovery codes with it).
    public func removeFactor(_ holder: AccountHolder, kind: SecondFactorRecord.Kind, caller: CallerInfo) async throws {
        try await requireAssurance(.remove(.secondFactor), holder)
        try await transaction { tx in
            let user = try await self.current(holder, in: tx)
            let kinds: [SecondFactorRecord.Kind] = kind == .totp ? [.totp, .recovery] : [kind]
            guard try await self.engine.factors.removeFactors(of: user, kinds: kinds, reason: "removed at the account page",
                                                             caller: .selfService(caller), in: tx) > 0 else { throw AccountPageRefusal.notFound }
        }
    }

    /// Ten new recovery codes, replacing the old ones; shown once.
    public func newRecoveryCodes(_ holder: AccountHolder, caller: CallerInfo) async throws -> [String] {
        try await requireAssurance(.add(.secondFactor), holder)
        return try await transaction { tx in
            let user = try await self.current(holder, in: tx)
            guard try await tx.secondFactors.secondFactors(userId: user.id).contains(where: { $0.kind == .totp }) else {
                throw AccountPageRefusal.notFound
            }
            let codes = try await self.engine.factors.replaceRecoveryCodes(userId: user.id, in: tx)
            try await self.audit(tx, "mfa_recovery_codes_replaced", caller: .selfService(caller), userId: user.id, email: user.email)
            return codes
        }
    }

    private func requireMethod(_ kind: SecondFactorRecord.Kind) throws {
        guard settings.mfa.methods.contains(kind.method) else { throw LatchkeyError.secondFactor(.methodNotEnabled(kind.rawValue)) }
    }
}
