import Foundation
import Testing
@testable import LatchkeyCore

/// Rotation: the newest key signs; a replaced key is published until its tokens can all have expired.
@Suite struct SigningKeyRingTests {
    static func record(_ key: SigningKey, at: Date) throws -> SigningKeyRecord {
        SigningKeyRecord(kid: key.kid, algorithm: key.algorithm, privateKeyPem: try key.privateKeyPEM(), createdAt: at)
    }

    @Test func aReplacedKeyStaysPublishedForTheRetentionThenIsDropped() throws {
        let t0 = Date(timeIntervalSince1970: 1_800_000_000)
        let first = try SigningKey.generate(), second = try SigningKey.generate()
        let ring = try SigningKeyRing(records: [try Self.record(first, at: t0)], retentionSeconds: 3900, now: t0)
        let generation = ring.snapshot.generation
        let token = try JWT.sign(claims: ["sub": .string("u")], key: ring.current)

        let records = [try Self.record(second, at: t0 + 100), try Self.record(first, at: t0)]
        #expect(try ring.replace(with: records, now: t0 + 100))
        #expect(ring.current.kid == second.kid)
        #expect(ring.published.map(\.kid) == [second.kid, first.kid])
        #expect(ring.snapshot.generation == generation + 1)
        #expect(JWT.verify(token, keys: ring.published) != nil)
        #expect(try ring.replace(with: records, now: t0 + 3999) == false)  // nothing changed: same generation
        #expect(try ring.replace(with: records, now: t0 + 4000))
        #expect(ring.published.map(\.kid) == [second.kid])
        #expect(JWT.verify(token, keys: ring.published) == nil)
    }

    @Test func reloadsOnDemandAtMostOnceASecond() throws {
        let t0 = Date(timeIntervalSince1970: 1_800_000_000)
        let ring = try SigningKeyRing(records: [try Self.record(try SigningKey.generate(), at: t0)], retentionSeconds: 60, now: t0)
        #expect(ring.mayReload(now: t0))
        #expect(!ring.mayReload(now: t0 + 0.5))
        #expect(ring.mayReload(now: t0 + 1))
    }
}
