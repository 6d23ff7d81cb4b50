import Foundation

/// How a device's sign-in at the pages ended, for the page that says so.
public enum DeviceOutcome: String, Sendable {
    case approved, denied
    /// Expired, or decided already (in another browser).
    case gone
}

/// The device authorization grant's browser side (RFC 8628 §3.3): the person types the device's user code at
/// `/ui/device`, signs in as at any visit (every factor the client asks for), and is always asked to confirm: the
/// code could have come from someone else's device (§5.4). The visit ends in the device's approval, written once.
extension PagesService {
    /// The visit a typed user code starts, or nil when the code is unknown, expired or decided already. Every code
    /// typed counts against the caller's network (`limits.device_code_per_ip`), so codes cannot be guessed.
    public func deviceVisit(userCode typed: String?, csrfCookie: String, caller: CallerInfo) async throws -> Interaction? {
        try await limit(.deviceCodePerIP, caller.ip, caller: caller)
        guard let userCode = UserCode.normalize(typed),
              let device = try await reader.devices.deviceAuthorization(userCodeHash: engine.secretHash(userCode)),
              device.decision == nil, device.expiresAt > time.now(), let client = engine.client(id: device.clientId) else { return nil }
        let request = AuthorizationRequest(clientId: client.id, redirectUri: GrantType.deviceCode.rawValue,
                                           scopes: device.scope.split(separator: " ").map(String.init), state: nil, nonce: nil,
                                           codeChallenge: nil, prompt: ["consent"], maxAge: nil, loginHint: nil, uiLocales: nil,
                                           deviceUserCode: userCode, resource: device.resource)
        return newInteraction(request, csrfCookie: csrfCookie)
    }

    /// The device's approval, not yet stored: a code under its device code's HMAC, living as long as the request.
    func deviceCode(_ request: AuthorizationRequest, session: BrowserSessionRecord) async throws -> AuthorizationCodeRecord? {
        guard let userCode = request.deviceUserCode,
              let device = try await reader.devices.deviceAuthorization(userCodeHash: engine.secretHash(userCode)),
              device.decision == nil, device.expiresAt > time.now() else { return nil }
        return AuthorizationCodeRecord(
            codeHash: device.deviceCodeHash, clientId: device.clientId, userId: session.userId, redirectUri: GrantType.deviceCode.rawValue,
            codeChallenge: nil, nonce: nil, scope: device.scope, amr: session.amr, authTime: session.authTime,
            familyId: TimeOrderedID.make(at: session.authTime), browserSessionId: session.id, expiresAt: device.expiresAt,
            resource: device.resource)
    }

    /// Marks the request approved and stores its code in one transaction; false when it was decided or expired meanwhile.
    func approveDevice(userCode: String, code: AuthorizationCodeRecord, caller: CallerInfo) async throws -> Bool {
        let now = time.now()
        return try await transaction { tx in
            guard try await tx.devices.decide(userCodeHash: self.engine.secretHash(userCode), .approved, at: now) else { return false }
            try await tx.openID.insert(code)
            try await self.audit(tx, "device_approved", caller: caller, userId: code.userId, detail: code.clientId)
            return true
        }
    }

    /// The person declined: the device's next poll is `access_denied`.
    func denyDevice(userCode: String, caller: CallerInfo) async throws -> String {
        let denied = try await engine.standaloneWrite { tx in
            try await tx.devices.decide(userCodeHash: self.engine.secretHash(userCode), .denied, at: self.time.now())
        }
        return deviceDone(denied ? .denied : .gone)
    }

    /// The page a device's visit ends on.
    func deviceDone(_ outcome: DeviceOutcome) -> String {
        settings.publicURL + Tokens.devicePagePath + "/done?result=" + outcome.rawValue
    }
}
