import Foundation
import JWTKit
import Logging

/// One issuer's published keys, cached for as long as its `Cache-Control: max-age` says (an hour without one, one
/// minute to a day either way). A token naming a key the cache lacks refetches at most once a minute; an issuer that
/// is down or slow only fails sign-ins whose key was never fetched. Fetches happen outside any transaction: a
/// sign-in verifies its token before it opens one.
actor KeySetCache {
    /// The keys of one fetch, by key id, with each key's type and declared algorithm.
    struct Keys {
        let collection: JWTKeyCollection
        let kinds: [String: (type: String, algorithm: String?)]
        let freshUntil: Date
    }

    enum Problem: Error { case unknownKey, unavailable }

    static let refetchInterval = 60.0
    static let defaultMaxAge = 3600, maxAgeBounds = 60...86_400

    private let name: String
    private let url: String
    private let caFile: String?
    private let fetcher: any KeySetFetcher
    private let time: any TimeSource
    private let logger: Logger
    private var keys: Keys?
    private var lastAttempt: Date?
    private var inFlight: Task<Keys, any Error>?

    init(name: String, url: String, caFile: String?, fetcher: any KeySetFetcher, time: any TimeSource, logger: Logger) {
        self.name = name; self.url = url; self.caFile = caFile; self.fetcher = fetcher; self.time = time; self.logger = logger
    }

    /// The collection holding key `kid`, and the key's type and algorithm.
    func key(_ kid: String) async throws(Problem) -> (JWTKeyCollection, type: String, algorithm: String?) {
        let now = time.now()
        if let keys, now < keys.freshUntil, let kind = keys.kinds[kid] { return (keys.collection, kind.type, kind.algorithm) }
        var fetchFailed = false
        if let running = inFlight {
            // A fetch under way: wait for it and take its keys (the caller that started it may resume after us).
            if let fetched = try? await running.value { keys = fetched } else { fetchFailed = true }
        } else if lastAttempt.map({ now.timeIntervalSince($0) >= Self.refetchInterval }) ?? true {
            lastAttempt = now
            let task = Task { [url, caFile, fetcher] in try await Self.parse(try await fetcher.fetch(url, caFile: caFile), at: now) }
            inFlight = task
            do {
                keys = try await task.value
            } catch {
                fetchFailed = true
                EngineMetrics.keySetFetchFailures.increment()
                logger.warning("could not fetch the issuer's keys", metadata: ["issuer": "\(name)", "url": "\(url)",
                                                                             "error": "\(error)"])
            }
            inFlight = nil
        }
        // A stale set still answers for the keys it has: the issuer being down must not sign everybody out.
        guard let keys else { throw .unavailable }
        // A key the issuer may have published while it cannot be asked: unavailable, not refused.
        guard let kind = keys.kinds[kid] else { throw fetchFailed ? .unavailable : .unknownKey }
        return (keys.collection, kind.type, kind.algorithm)
    }

    private static func parse(_ fetched: FetchedKeySet, at now: Date) async throws -> Keys {
        let set = try JSONDecoder().decode(JWKS.self, from: Data(fetched.body))
        let collection = JWTKeyCollection()
        var kinds: [String: (type: String, algorithm: String?)] = [:]
        for jwk in set.keys {
            // Keys without an id, or of a kind jwt-kit cannot build, are left out; the others still serve.
            guard let kid = jwk.keyIdentifier?.string, (try? await collection.add(jwk: jwk)) != nil else { continue }
            kinds[kid] = (jwk.keyType.rawValue, jwk.algorithm?.rawValue)
        }
        let maxAge = min(max(fetched.maxAgeSeconds ?? defaultMaxAge, maxAgeBounds.lowerBound), maxAgeBounds.upperBound)
        return Keys(collection: collection, kinds: kinds, freshUntil: now + Double(maxAge))
    }
}
