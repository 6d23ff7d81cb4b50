import Testing
@testable import LatchkeyCore

/// The schemes Firebase, Keycloak and others export, against values an independent implementation computed:
/// Firebase's own published example (checked with PyPI's `firebase-scrypt`), PBKDF2 from Python's `hashlib`, Argon2id
/// from `argon2-cffi` at Keycloak's default parameters.
@Suite struct ImportedHashSchemeTests {
    let hasher = PasswordHasher(parameters: ScryptParameters(logN: 10))

    @Test func firebaseScryptMatchesFirebasesPublishedExample() throws {
        let stored = try #require(FirebaseScryptHash.encode(
            hash: "lSrfV15cpx95/sZS2W9c9Kp6i/LVgQNDNC/qzrCnh1SAyZvqmZqAjTdn3aoItz+VHjoZilo78198JAdRuid5lQ==", salt: "42xEC+ixf3L2lw==",
            signerKey: "jxspr8Ki0RYycVU8zykbdLGjFQ3McFUH0uiiTvC8pVMXAn210wjLNmdZJzxUECKbm0QsEmYUSDzZvpjeJ9WmXA==", saltSeparator: "Bw==",
            rounds: 8, memCost: 14))
        #expect(try PasswordHasher.importableScheme(stored).get() == "firebase-scrypt")
        #expect(hasher.verify("user1password", against: stored) == .matchNeedsRehash)
        #expect(hasher.verify("user1password ", against: stored) == .mismatch)
        #expect(FirebaseScryptHash.encode(hash: "aGFzaA==", salt: "c2FsdA==", signerKey: "a2V5", saltSeparator: "Bw==", rounds: 8,
                                          memCost: 24) == nil)  // 2^24 × 8 × 128 bytes: over the memory budget
    }

    @Test func keycloakPBKDF2AtItsStoredParameters() throws {
        let salt = "a2V5Y2xvYWstc2FsdC0xNg=="
        let vectors: [(PBKDF2Hash.PRF, Int, String)] = [
            (.sha256, 27_500, "YIuXJmGMN2wkthdgVQtB4r6K3bdvMsKF+9tcyGpPxPw="),
            (.sha512, 210_000, "uKg55rbQcQHZ6aWT3wKeEHcmVm1nmrdY+5BXxJV5AuNwY6ryQ11FL3q0/7q/ADothRnsCCA6efwHDj8/1WemDQ=="),
            (.sha1, 27_500, "/QXqPcnmUUUbOouVuW1jDTz9TELOGpDW07jGuGzkJbuc4tuX4KLpDvnay0RQtGleQIXNBHc1EMiBvOLCViW/KA=="),
        ]
        for (prf, iterations, hash) in vectors {
            let stored = try #require(PBKDF2Hash.encode(prf, iterations: iterations, salt: salt, hash: hash))
            #expect(try PasswordHasher.importableScheme(stored).get() == prf.rawValue)
            #expect(hasher.verify("kéy cloak", against: stored) == .matchNeedsRehash)
            #expect(hasher.verify("key cloak", against: stored) == .mismatch)
        }
        #expect(PBKDF2Hash.encode(.sha256, iterations: 3_000_000, salt: salt, hash: vectors[0].2) == nil)
    }

    @Test func argon2idAtKeycloaksDefaults() throws {
        let stored = try #require(Argon2Hash.encode(type: "id", version: "1.3", memoryKiB: 7168, passes: 5, lanes: 1,
                                                    salt: "a2V5Y2xvYWstc2FsdC0xNg==", hash: "1vIj73RsmaDOOtF0xTSAUNcipcKd/JCCyRoAhH7tbs0="))
        #expect(stored.hasPrefix("$argon2id$v=19$m=7168,t=5,p=1$"))
        #expect(try PasswordHasher.importableScheme(stored).get() == "argon2id")
        #expect(hasher.verify("kéy cloak", against: stored) == .matchNeedsRehash)
        #expect(hasher.verify("kéy cloak!", against: stored) == .mismatch)
        #expect(Argon2Hash.encode(type: "id", version: "1.3", memoryKiB: 7168, passes: 500, lanes: 1, salt: "a2V5Y2xvYWstc2FsdC0xNg==",
                                  hash: "1vIj73RsmaDOOtF0xTSAUNcipcKd/JCCyRoAhH7tbs0=") == nil)
    }
}
