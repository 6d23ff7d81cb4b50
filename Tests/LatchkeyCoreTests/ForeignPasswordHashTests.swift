import Foundation
import CCrypt
import Testing
@testable import LatchkeyCore

/// Imported hashes: published known answers verify (and only with the right password), every scheme's cost is
/// bounded, and Latchkey's own verification asks for a rehash after any of them.
@Suite struct ForeignPasswordHashTests {
    /// From the bcrypt, SHA-crypt (Drepper's specification) test vectors; Django's computed with Python's hashlib.
    static let knownAnswers: [(password: String, hash: String, scheme: ForeignPasswordHash.Scheme)] = [
        ("U*U", "$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW", .bcrypt),
        ("Hello world!", "$6$saltstring$svn8UoSVapNtMuq1ukKS4tPQd8iKwSMHWjl/O817G3uBnIFNjnQJuesI68u4OTLiBFdcbYEdFCoEOfaS35inz1", .sha512Crypt),
        ("Hello world!", "$6$rounds=10000$saltstringsaltst$OW1/O6BYHV6BcXZu8QVeXbDWra3Oeqh0sbHbbMCVNSnCM/UrjmM0Dp8vOuZeHBy/YTBmSK6H9qs/y3RnOaw5v.",
         .sha512Crypt),
        ("Hello world!", "$5$saltstring$5B8vYYiY.CVt1RlTTf8KbXBH3hsxY/GNooZaBBGWEc5", .sha256Crypt),
        ("lètmein", "pbkdf2_sha256$600000$seasalt$OAXyhAQ/4ZDA9V5RMExt3C1OwQdUpLZ99vm1McFlLRA=", .djangoPBKDF2),
    ]

    @Test func knownAnswersVerifyOnlyWithTheirPassword() throws {
        let hasher = PasswordHasher(parameters: ScryptParameters(logN: 10))
        for vector in Self.knownAnswers {
            #expect(try ForeignPasswordHash.check(vector.hash).get() == vector.scheme, "\(vector.hash)")
            #expect(hasher.verify(vector.password, against: vector.hash) == .matchNeedsRehash, "\(vector.hash)")
            #expect(hasher.verify(vector.password + "x", against: vector.hash) == .mismatch, "\(vector.hash)")
            // A C string ends at NUL, so crypt would check a shorter password. (PBKDF2 takes a length, and HMAC pads
            // short keys with zeros: trailing NULs match there, in Django as here.)
            if vector.scheme != .djangoPBKDF2 {
                #expect(hasher.verify(vector.password + "\0", against: vector.hash) == .mismatch, "\(vector.hash)")
                #expect(hasher.verify(vector.password + "\0tail", against: vector.hash) == .mismatch, "\(vector.hash)")
            }
        }
        // $2y$ is the same algorithm under PHP's name.
        #expect(hasher.verify("U*U", against: "$2y$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW") == .matchNeedsRehash)
    }

    @Test func yescryptAsLibxcryptWritesItVerifies() throws {
        var setting = [CChar](repeating: 0, count: 128)
        #expect(crypt_gensalt_rn("$y$", 5, nil, 0, &setting, Int32(setting.count)) != nil)
        let hash = try #require(ForeignPasswordHash.crypt("yes, crypt", setting: String(decoding: setting.prefix { $0 != 0 }.map(UInt8.init(bitPattern:)), as: UTF8.self)))
        #expect(try ForeignPasswordHash.check(hash).get() == .yescrypt)
        #expect(ForeignPasswordHash.verify("yes, crypt", against: hash))
        #expect(!ForeignPasswordHash.verify("no, crypt", against: hash))
        #expect(ForeignPasswordHash.yescryptMemory("j9T") == 16 << 20)  // Debian's default: N = 2^12, r = 32
    }

    @Test func costBombsAndUnknownSchemesAreRefused() {
        let refused = [
            "$2b$15$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW",  // bcrypt above cost 14
            "$2b$31$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW",
            "$2a$05$tooShort",
            "$6$rounds=5000000$saltstring$svn8UoSVapNtMuq1ukKS4tPQd8iKwSMHWjl/O817G3uBnIFNjnQJuesI68u4OTLiBFdcbYEdFCoEOfaS35inz1",
            "$y$jFT$gR6vlBf3ZBnsJQIrA/opI/$xNRsVAf4ek3Vii89yXC0qqQDltKJOzBXheuyLMb8o08",  // yescrypt at 1 GiB per check
            "$y$j9T$F5$gR6vlBf3ZBnsJQIrA/opI/$xNRsVAf4ek3Vii89yXC0qqQDltKJOzBXheuyLMb8o08",
            "pbkdf2_sha256$3000000$seasalt$OAXyhAQ/4ZDA9V5RMExt3C1OwQdUpLZ99vm1McFlLRA=",
            "pbkdf2_sha256$600000$seasalt$c2hvcnQ=",
            "$argon2id$v=19$m=1048576,t=3,p=4$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA",  // argon2 at 1 GiB per check
            "$1$saltsalt$abcdefghijklmnopqrstuv",  // md5crypt: legacy, not carried over
            "plaintext password",
            "",
        ]
        let hasher = PasswordHasher(parameters: ScryptParameters(logN: 10))
        for hash in refused {
            guard case .failure(let refusal) = PasswordHasher.importableScheme(hash) else {
                Issue.record("accepted \(hash)")
                continue
            }
            #expect(!refusal.reason.isEmpty)
            #expect(hasher.verify("anything", against: hash) == .mismatch)
        }
        if case .failure(let refusal) = ForeignPasswordHash.check(refused[8]) { #expect(refusal.scheme == "argon2id") }
    }

    @Test func latchkeysOwnHashesImportAsScrypt() throws {
        let hasher = PasswordHasher(parameters: ScryptParameters(logN: 10))
        let own = hasher.hash("our own")
        #expect(try PasswordHasher.importableScheme(own).get() == "scrypt")
        #expect(hasher.verify("our own", against: own) == .match)
        #expect(throws: ForeignPasswordHash.Refusal.self) { try PasswordHasher.importableScheme("$scrypt$ln=30,r=8,p=1$c2FsdA$aGFzaA").get() }
    }
}
