import Foundation
import Synchronization

/// The signing keys in use: the newest signs, and an older key stays published (and verifies) until every token
/// it can have signed has expired. Reloaded from the store, so a key rotated on one replica reaches the others
/// without a restart.
public final class SigningKeyRing: Sendable {
    public struct Snapshot: Sendable {
        /// Newest first; `keys[0]` signs.
        public let keys: [SigningKey]
        /// Bumped whenever the published set changes (the JWKS document is encoded again then).
        public let generation: Int
    }

    /// How long a replaced key stays published: the longest life of a token it signed, plus clock skew.
    let retentionSeconds: Double
    private let state: Mutex<Snapshot>
    private let lastReload = Mutex<Date>(.distantPast)

    init(records: [SigningKeyRecord], retentionSeconds: Double, now: Date) throws {
        self.retentionSeconds = retentionSeconds
        state = Mutex(Snapshot(keys: [], generation: 0))
        _ = try replace(with: records, now: now)
    }

    public var snapshot: Snapshot { state.withLock { $0 } }
    public var current: SigningKey { state.withLock { $0.keys[0] } }
    public var published: [SigningKey] { state.withLock { $0.keys } }

    /// Which of `records` (newest first) are still published at `now`.
    static func publishedRecords(_ records: [SigningKeyRecord], now: Date, retentionSeconds: Double) -> [SigningKeyRecord] {
        records.enumerated().filter { index, _ in
            index == 0 || records[index - 1].createdAt.addingTimeInterval(retentionSeconds) > now
        }.map(\.element)
    }

    /// Installs the published keys among `records`; keys already loaded are kept (no PEM parsing again).
    /// True when the set changed.
    @discardableResult
    func replace(with records: [SigningKeyRecord], now: Date) throws -> Bool {
        let wanted = Self.publishedRecords(records.sorted { $0.createdAt > $1.createdAt }, now: now, retentionSeconds: retentionSeconds)
        guard !wanted.isEmpty else { throw CryptoError.failed("no signing key") }
        let loaded = Dictionary(published.map { ($0.kid, $0) }, uniquingKeysWith: { first, _ in first })
        let keys = try wanted.map { try loaded[$0.kid] ?? SigningKey.load(pem: $0.privateKeyPem) }
        return state.withLock { snapshot in
            guard snapshot.keys.map(\.kid) != keys.map(\.kid) else { return false }
            snapshot = Snapshot(keys: keys, generation: snapshot.generation + 1)
            return true
        }
    }

    /// At most one reload a second on demand (a token with an unknown `kid`), so forged tokens cannot hammer the store.
    func mayReload(now: Date) -> Bool {
        lastReload.withLock { last in
            guard now.timeIntervalSince(last) >= 1 else { return false }
            last = now
            return true
        }
    }
}
