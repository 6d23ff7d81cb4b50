import Foundation
import Logging

extension LatchkeyEngine {
    /// How long a start waits for another process that holds the database (a `migrate` beside a `serve`, a restart
    /// overlapping a stop, replicas starting together) before it gives up.
    static let bootstrapPatienceSeconds: Double = 30

    /// The server key, tenant id and signing keys, made on the first start. Every write is insert-if-absent, so a
    /// start that lost a race to another one, or waited past the store's busy timeout, runs again and reads the winner's.
    static func bootstrap(_ store: any Store, now: Date, logger: Logger) async throws -> (Data, Data, [SigningKeyRecord]) {
        let deadline = ContinuousClock.now + .seconds(bootstrapPatienceSeconds)
        while true {
            do {
                return try await store.transaction { tx in try await firstValues(tx, now: now) }
            } catch where store.isContention(error) && ContinuousClock.now < deadline {
                logger.warning("the database is busy with another process; starting again in a moment", metadata: ["error": "\(error)"])
                try await Task.sleep(for: .milliseconds(200))
            }
        }
    }

    private static func firstValues(_ tx: any Repositories, now: Date) async throws -> (Data, Data, [SigningKeyRecord]) {
        let key = try await tx.serverValues.insertIfAbsent(name: "token_key", value: Data(SecureRandom.bytes(32)))
        let tenant = try await tx.serverValues.insertIfAbsent(name: "tenant_id", value: Data(SecureRandom.uuidString().utf8))
        var keys = try await tx.serverValues.signingKeys()
        if keys.isEmpty {
            let generated = try SigningKey.generate()
            let claimed = try await tx.serverValues.insertIfAbsent(name: "first_signing_key", value: Data(generated.kid.utf8))
            if claimed == Data(generated.kid.utf8) {
                try await tx.serverValues.insert(signingKey: SigningKeyRecord(
                    kid: generated.kid, algorithm: generated.algorithm, privateKeyPem: try generated.privateKeyPEM(), createdAt: now))
            }
            keys = try await tx.serverValues.signingKeys()
        }
        return (key, tenant, keys)
    }
}
