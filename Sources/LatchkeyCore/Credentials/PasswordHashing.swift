import Synchronization

/// Password hashes: scrypt at the configured cost, run on the hashing pool off the event loops, and the dummy
/// check that makes a refused sign-in take as long as a real one.
final class PasswordHashing: Sendable {
    private let pool: HashingPool
    private let hasher: PasswordHasher
    /// A hash of a random password, made on first need.
    private let dummyHash = Mutex<String?>(nil)

    init(parameters: ScryptParameters, concurrency: Int, queueLimit: Int) {
        pool = HashingPool(concurrency: concurrency, queueLimit: queueLimit)
        hasher = PasswordHasher(parameters: parameters)
    }

    func hash(_ password: String) async throws -> String {
        let hasher = hasher
        return try await pool.run { hasher.hash(password) }
    }

    func verify(_ password: String, against phc: String) async throws -> PasswordHasher.Verdict {
        let hasher = hasher
        return try await pool.run { hasher.verify(password, against: phc) }
    }

    /// Spends the time of one real check, for an account that cannot pass, so the answer's timing does not tell
    /// which accounts exist.
    func spendOneCheck(_ password: String) async throws {
        if let hash = dummyHash.withLock({ $0 }) {
            _ = try await verify(password, against: hash)
        } else {
            // The first time, making the dummy hash is itself the work of one check (scrypt either way).
            let hash = try await self.hash(SecureRandom.bytes(16).hex)
            dummyHash.withLock { $0 = $0 ?? hash }
        }
    }
}
