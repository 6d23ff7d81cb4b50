import Foundation

/// Continuation tokens: random, stored only as an HMAC, a fresh one for every step that succeeds.
extension LatchkeyEngine {
    func newFlow(_ kind: FlowRecord.Kind, email: String, userId: String?, state: FlowState,
                 in tx: any StoreWriting) throws -> String {
        let token = SecureRandom.token()
        let now = time.now()
        try tx.save(flow: FlowRecord(id: UUID().uuidString.lowercased(), tokenHash: secretHash(token), kind: kind,
                                     email: email, userId: userId, state: state,
                                     expiresAt: now + Double(settings.tokens.flowTTLSeconds), createdAt: now))
        return token
    }

    /// The checks every flow's first step makes, in this order: a known client, the per-IP budget for this
    /// kind of start, a plausible email address, and a challenge_type list that includes `redirect`.
    func beginFlow(_ rule: LimitSettings.Rule, username: String?, challengeTypes: String?,
                   caller: CallerInfo) async throws -> (ClientApplication, String, ChallengeTypes) {
        let client = try requireClient(caller.clientId)
        try await limit(rule, caller.ip, caller: caller)
        return (client, try requireEmail(username), try ChallengeTypes.parse(challengeTypes))
    }

    /// Saves the flow's new state under a new token; the old token stops working.
    func advance(_ flow: FlowRecord, in tx: any StoreWriting) throws -> String {
        var next = flow
        let token = SecureRandom.token()
        next.tokenHash = secretHash(token)
        next.expiresAt = time.now() + Double(settings.tokens.flowTTLSeconds)
        try tx.save(flow: next)
        return token
    }

    /// The live flow of `kind` behind `token`, started by the same client; a token from another kind of
    /// flow or another app is as good as unknown.
    func loadFlow(_ token: String?, kind: FlowRecord.Kind, client: String?, in tx: any StoreReading) throws -> FlowRecord {
        guard let token, !token.isEmpty else { throw LatchkeyError.missingParameter("continuation_token") }
        guard token.count <= 512, let flow = try tx.flow(tokenHash: secretHash(token)), flow.kind == kind,
              flow.state.clientId.caseInsensitiveCompare(client ?? "") == .orderedSame else {
            throw LatchkeyError.flowTokenInvalid
        }
        guard flow.expiresAt > time.now() else { throw LatchkeyError.flowTokenExpired }
        return flow
    }
}

/// Which challenge types the client said it can handle (`challenge_type`, space separated).
public struct ChallengeTypes: Sendable, Equatable {
    public var oob: Bool
    public var password: Bool
    public var redirect: Bool

    /// Parses the SDK's list; the docs require `redirect` in every list.
    public static func parse(_ raw: String?) throws -> ChallengeTypes {
        guard let raw, !raw.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw LatchkeyError.missingParameter("challenge_type")
        }
        let words = Set(raw.split(whereSeparator: { $0 == " " || $0 == "," || $0 == "+" }).map { $0.lowercased() })
        let parsed = ChallengeTypes(oob: words.contains("oob"), password: words.contains("password"),
                                    redirect: words.contains("redirect"))
        guard parsed.redirect else { throw LatchkeyError.unsupportedChallengeType }
        return parsed
    }
}
