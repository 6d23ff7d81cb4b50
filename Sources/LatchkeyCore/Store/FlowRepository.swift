import Foundation

/// Continuation-token flows and their mailed one-time codes.
public protocol FlowRepository: Sendable {
    func find(tokenHash: Data) async throws -> FlowRecord?
    func insert(_ flow: FlowRecord) async throws
    /// Stores the flow's new state and token only if its token is still `previousTokenHash`: a token moves a flow
    /// one step, once. False when another call got there first.
    func advance(_ flow: FlowRecord, from previousTokenHash: Data) async throws -> Bool
    /// Deletes the flow only if its token is still `tokenHash` (single-use completion). False when it was not.
    func complete(id: String, tokenHash: Data) async throws -> Bool

    /// Stores a code for a flow, replacing the flow's earlier one.
    func saveCode(_ code: OTPRecord) async throws
    /// Redeems or counts a guess in one conditional write: a match is consumed (once), a miss costs an attempt,
    /// the last attempt or an expired code removes it.
    func redeemCode(flowId: String, codeHash: Data, now: Date) async throws -> CodeRedemption
}

public enum CodeRedemption: Sendable, Equatable {
    case redeemed
    case wrong(attemptsLeft: Int)
    /// No live code: never sent, used, expired or out of attempts.
    case noLiveCode
}
