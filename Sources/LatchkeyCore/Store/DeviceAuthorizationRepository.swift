import Foundation

/// The device authorization grant's requests (RFC 8628). Found by the device code's HMAC when the device polls and by
/// the user code's when the person types it; a decision is taken once, in one conditional write.
public protocol DeviceAuthorizationRepository: Sendable {
    /// False, with nothing written, when the user code's HMAC is taken (the caller draws another code).
    func insert(_ device: DeviceAuthorizationRecord) async throws -> Bool
    func deviceAuthorization(deviceCodeHash: Data) async throws -> DeviceAuthorizationRecord?
    func deviceAuthorization(userCodeHash: Data) async throws -> DeviceAuthorizationRecord?
    /// Records the decision if none was taken and the request is unexpired at `now`; false otherwise.
    func decide(userCodeHash: Data, _ decision: DeviceAuthorizationRecord.Decision, at now: Date) async throws -> Bool
    /// Records a poll, and the interval the device is to keep from now on.
    func notePoll(deviceCodeHash: Data, at now: Date, intervalSeconds: Int) async throws
}

/// A device's request for tokens, pending until the person who typed its user code approves or denies it.
public struct DeviceAuthorizationRecord: Codable, Sendable, Equatable {
    public enum Decision: String, Codable, Sendable {
        /// The authorization code for it is written under the device code's HMAC.
        case approved
        case denied
    }

    public var deviceCodeHash: Data
    public var userCodeHash: Data
    public var clientId: String
    /// Space-separated scopes.
    public var scope: String
    /// The least time between two polls (RFC 8628 §3.5); each poll that comes sooner adds five seconds.
    public var intervalSeconds: Int
    public var expiresAt: Date
    public var polledAt: Date?
    public var decision: Decision?
    /// The protected resource the device asked a token for (RFC 8707).
    public var resource: String?

    public init(deviceCodeHash: Data, userCodeHash: Data, clientId: String, scope: String, intervalSeconds: Int, expiresAt: Date,
                polledAt: Date? = nil, decision: Decision? = nil, resource: String? = nil) {
        self.deviceCodeHash = deviceCodeHash; self.userCodeHash = userCodeHash; self.clientId = clientId; self.scope = scope
        self.intervalSeconds = intervalSeconds; self.expiresAt = expiresAt; self.polledAt = polledAt; self.decision = decision
        self.resource = resource
    }
}
