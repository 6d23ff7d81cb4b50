import Foundation

/// What the device authorization endpoint answers (RFC 8628 §3.2).
public struct DeviceAuthorization: Sendable, Equatable {
    public var deviceCode: String
    /// As the person is to type it: `BCDF-GHJK`.
    public var userCode: String
    public var verificationURI: String
    public var verificationURIComplete: String
    public var expiresIn: Int
    public var interval: Int
}

/// The device authorization grant's token side: a device asks for a pair of codes, shows the user code, and polls
/// the token endpoint with the device code until the person approves at `/ui/device` (`DeviceSignIn.swift`). The
/// approval is an authorization code stored under the device code's HMAC, so the poll that finds it redeems it as
/// the code exchange does: once, in one conditional write, its tokens bound to the browser sign-in that approved it.
extension Tokens {
    public static let devicePagePath = "/ui/device"

    /// A new device request for `client`; counted as a sign-in started from the caller's network.
    public func startDeviceAuthorization(client: ClientApplication, scope: String?, resource: String?, caller: CallerInfo) async throws
        -> DeviceAuthorization {
        try engine.accounts.requireGrant(.deviceCode, for: client)
        try await limit(.signInPerIP, caller.ip, caller: caller)
        let resource = try engine.protectedResource(resource)
        let scopes = try grantedScopes(scope, client: client, resource: resource)
        let deviceCode = SecureRandom.token()
        let lifetime = settings.openID.deviceCodeTTLSeconds, interval = settings.openID.devicePollSeconds
        // A user code already taken (20^8 of them: all but never) is drawn again.
        for _ in 0..<3 {
            let userCode = UserCode.make()
            let record = DeviceAuthorizationRecord(deviceCodeHash: engine.secretHash(deviceCode), userCodeHash: engine.secretHash(userCode),
                                                   clientId: client.id, scope: scopes.joined(separator: " "), intervalSeconds: interval,
                                                   expiresAt: time.now() + Double(lifetime), resource: resource?.uri)
            guard try await engine.standaloneWrite({ try await $0.devices.insert(record) }) else { continue }
            let page = settings.publicURL + Self.devicePagePath, shown = UserCode.display(userCode)
            return DeviceAuthorization(deviceCode: deviceCode, userCode: shown, verificationURI: page,
                                       verificationURIComplete: QueryEncoding.appending(["user_code": shown], to: page),
                                       expiresIn: lifetime, interval: interval)
        }
        throw LatchkeyError.serverBusy(retryAfterSeconds: 1)
    }

    /// A device's poll: tokens once approved; until then `authorization_pending`, or `slow_down` (and five seconds more
    /// between polls) for one that came sooner than the interval; `access_denied`, `expired_token` at the end.
    public func exchangeDeviceCode(_ deviceCode: String?, resource: String?, client: ClientApplication, caller: CallerInfo) async throws
        -> TokenSet {
        try engine.accounts.requireGrant(.deviceCode, for: client)
        guard let deviceCode, !deviceCode.isEmpty else { throw LatchkeyError.openID(.invalidRequest("device_code is missing.")) }
        let unknown = LatchkeyError.openID(.invalidGrant("The device code is unknown."))
        guard deviceCode.utf8.count <= SecretToken.maxPresentedBytes else { throw unknown }
        let hash = engine.secretHash(deviceCode), now = time.now()
        guard let device = try await reader.devices.deviceAuthorization(deviceCodeHash: hash),
              ClientApplication.sameID(device.clientId, client.id) else { throw unknown }
        guard device.expiresAt > now else { throw LatchkeyError.openID(.expiredToken) }
        switch device.decision {
        case .approved:
            return try await redeemCode(code: deviceCode, redirectUri: GrantType.deviceCode.rawValue, codeVerifier: nil, resource: resource,
                                        client: client, caller: caller)
        case .denied:
            throw LatchkeyError.openID(.accessDenied)
        case nil:
            let early = device.polledAt.map { now.timeIntervalSince($0) < Double(device.intervalSeconds) } ?? false
            let interval = early ? device.intervalSeconds + 5 : device.intervalSeconds
            try await engine.standaloneWrite { try await $0.devices.notePoll(deviceCodeHash: hash, at: now, intervalSeconds: interval) }
            throw LatchkeyError.openID(early ? .slowDown : .authorizationPending)
        }
    }
}
