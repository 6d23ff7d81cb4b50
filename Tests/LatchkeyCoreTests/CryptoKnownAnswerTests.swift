import Foundation
import Testing
@testable import LatchkeyCore

func hexBytes(_ s: String) -> [UInt8] {
    let clean = s.filter { !$0.isWhitespace }
    return stride(from: 0, to: clean.count, by: 2).map {
        let start = clean.index(clean.startIndex, offsetBy: $0)
        return UInt8(clean[start..<clean.index(start, offsetBy: 2)], radix: 16)!
    }
}

@Suite struct ScryptKnownAnswers {
    // RFC 7914 §12 test vectors.
    @Test func emptyPasswordAndSalt() {
        let out = PasswordHasher.scrypt(password: [], salt: [], parameters: ScryptParameters(logN: 4, r: 1, p: 1), length: 64)
        #expect(out == hexBytes("""
            77 d6 57 62 38 65 7b 20 3b 19 ca 42 c1 8a 04 97 f1 6b 48 44 e3 07 4a e8 df df fa 3f ed e2 14 42
            fc d0 06 9d ed 09 48 f8 32 6a 75 3a 0f c8 1f 17 e8 d3 e0 fb 2e 0d 36 28 cf 35 e2 0c 38 d1 89 06
            """))
    }

    @Test func passwordNaCl() {
        let out = PasswordHasher.scrypt(password: Array("password".utf8), salt: Array("NaCl".utf8),
                                        parameters: ScryptParameters(logN: 10, r: 8, p: 16), length: 64)
        #expect(out == hexBytes("""
            fd ba be 1c 9d 34 72 00 78 56 e7 19 0d 01 e9 fe 7c 6a d7 cb c8 23 78 30 e7 73 76 63 4b 37 31 62
            2e af 30 d9 2e 22 a3 88 6f f1 09 27 9d 98 30 da c7 27 af b9 4a 83 ee 6d 83 60 cb df a2 cc 06 40
            """))
    }

    @Test func pleaseLetMeIn() {
        let out = PasswordHasher.scrypt(password: Array("pleaseletmein".utf8), salt: Array("SodiumChloride".utf8),
                                        parameters: ScryptParameters(logN: 14, r: 8, p: 1), length: 64)
        #expect(out == hexBytes("""
            70 23 bd cb 3a fd 73 48 46 1c 06 cd 81 fd 38 eb fd a8 fb ba 90 4f 8e 3e a9 b5 43 f6 54 5d a1 f2
            d5 43 29 55 61 3f 0f cf 62 d4 97 05 24 2a 9a f9 e6 1e 85 dc 0d 65 1e 40 df cf 01 7b 45 57 58 87
            """))
    }
}

@Suite struct SHA256KnownAnswers {
    // FIPS 180-2 examples.
    @Test func shortMessages() {
        #expect(Digest.sha256([]).hex == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(Digest.sha256(Array("abc".utf8)).hex == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(Digest.sha256(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)).hex
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
    }
}

@Suite struct HMACKnownAnswers {
    // RFC 4231 test cases 1, 2 and 6 (HMAC-SHA-256).
    @Test func case1() {
        #expect(Digest.hmacSHA256(key: [UInt8](repeating: 0x0b, count: 20), data: Array("Hi There".utf8)).hex
                == "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7")
    }

    @Test func case2() {
        #expect(Digest.hmacSHA256(key: Array("Jefe".utf8), data: Array("what do ya want for nothing?".utf8)).hex
                == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
    }

    @Test func case6LargeKey() {
        #expect(Digest.hmacSHA256(key: [UInt8](repeating: 0xaa, count: 131),
                                  data: Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8)).hex
                == "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54")
    }

    /// A key set up once gives the same MACs, call after call and from many tasks at once (its state is copied, never
    /// changed).
    @Test func aKeySetUpOnceAnswersTheSame() async {
        let jefe = MACKey(Array("Jefe".utf8))
        let answers = await withTaskGroup(of: String.self) { group in
            for _ in 0..<64 { group.addTask { jefe.mac(Array("what do ya want for nothing?".utf8)).hex } }
            return await group.reduce(into: [String]()) { $0.append($1) }
        }
        #expect(Set(answers) == ["5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"])
        let large = MACKey([UInt8](repeating: 0xaa, count: 131))
        #expect(large.mac(Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8)).hex
                == "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54")
        #expect(jefe.mac([]) == Digest.hmacSHA256(key: Array("Jefe".utf8), data: []))
    }
}

@Suite struct PasswordHashing {
    let hasher = PasswordHasher(parameters: ScryptParameters(logN: 10, r: 8, p: 1))

    @Test func phcFormatAndVerify() {
        let phc = hasher.hash("correct horse")
        #expect(phc.hasPrefix("$scrypt$ln=10,r=8,p=1$"))
        #expect(phc.split(separator: "$").count == 4)
        #expect(hasher.verify("correct horse", against: phc) == .match)
        #expect(hasher.verify("correct horsE", against: phc) == .mismatch)
        #expect(hasher.hash("correct horse") != phc, "salts must differ")
    }

    @Test func costChangeAsksForRehash() {
        let old = PasswordHasher(parameters: ScryptParameters(logN: 11, r: 8, p: 1)).hash("pw-12345")
        #expect(hasher.verify("pw-12345", against: old) == .matchNeedsRehash)
    }

    @Test func malformedOrHostileStringsNeverMatch() {
        #expect(hasher.verify("x", against: "") == .mismatch)
        #expect(hasher.verify("x", against: "$scrypt$ln=40,r=8,p=1$AAAA$AAAA") == .mismatch)
        #expect(hasher.verify("x", against: "$argon2id$v=19$m=1,t=1,p=1$AAAA$AAAA") == .mismatch)
    }
}

@Suite struct RandomAndSecrets {
    @Test func digitsAreDigitsOfTheRightLength() {
        var seen = Set<Character>()
        for _ in 0..<200 {
            let code = SecureRandom.digits(8)
            #expect(code.count == 8 && code.allSatisfy(\.isNumber))
            seen.formUnion(code)
        }
        #expect(seen.count == 10)
    }

    @Test func uniformStaysInRange() {
        for bound in [1, 2, 7, 10, 1000] as [UInt32] {
            for _ in 0..<100 { #expect(SecureRandom.uniform(bound) < bound) }
        }
    }

    @Test func tokensCarry256Bits() {
        let token = SecureRandom.token()
        #expect(Base64URL.decode(token)?.count == 32)
        #expect(token != SecureRandom.token())
    }

    @Test func constantTimeEquality() {
        #expect(Digest.constantTimeEqual([1, 2, 3], [1, 2, 3]))
        #expect(!Digest.constantTimeEqual([1, 2, 3], [1, 2, 4]))
        #expect(!Digest.constantTimeEqual([1, 2], [1, 2, 3]))
    }

    @Test func secretBoxRoundTripAndTamper() {
        let box = SecretBox(key: SecureRandom.bytes(32))
        let sealed = box.seal(Array("code 12345678".utf8))
        #expect(box.open(sealed) == Array("code 12345678".utf8))
        var tampered = sealed
        tampered[14] ^= 1
        #expect(box.open(tampered) == nil)
        #expect(SecretBox(key: SecureRandom.bytes(32)).open(sealed) == nil)
        #expect(box.open(Array(sealed.prefix(27))) == nil)
    }

    /// Boxes already stored (queued mail) or handed out (sealed visits) keep opening: nonce || ciphertext || tag, as
    /// Python's `cryptography` (AESGCM) makes it for this key and nonce.
    @Test func secretBoxOpensTheStandardLayout() {
        let hex = Array("6465666768696a6b6c6d6e6f396ebb131c8d76f35f0b33c8b80a0e84daa200a7e104330573361a0bc2414b2a")
        let sealed = stride(from: 0, to: hex.count, by: 2).map { UInt8(String(hex[$0...$0 + 1]), radix: 16)! }
        #expect(SecretBox(key: [UInt8](0..<32)).open(sealed) == Array("queued mail body".utf8))
    }
}

@Suite struct JWTSigning {
    @Test func signVerifyAndReload() throws {
        let key = try SigningKey.generate()
        let token = try JWT.sign(claims: ["sub": "u1", "exp": .int(42)], key: key)
        #expect(JWT.verify(token, keys: [key])?["sub"] == .string("u1"))
        let reloaded = try SigningKey.load(pem: try key.privateKeyPEM())
        #expect(reloaded.kid == key.kid)
        #expect(JWT.verify(token, keys: [reloaded]) != nil)
        #expect(JWT.verify(token, keys: [try SigningKey.generate()]) == nil)
        var parts = token.split(separator: ".").map(String.init)
        parts[1] = Base64URL.encode(Array("{\"sub\":\"admin\",\"exp\":42}".utf8))
        #expect(JWT.verify(parts.joined(separator: "."), keys: [key]) == nil)
        let jwk = key.publicJWK
        #expect(jwk["kty"] == "EC" && jwk["crv"] == "P-256" && Base64URL.decode(jwk["x"]!)?.count == 32)
    }

    /// A key stored by an earlier version (OpenSSL's PKCS#8, as `openssl genpkey` writes it) or handed over as SEC 1
    /// loads, keeps its published coordinates and its kid (the RFC 7638 thumbprint, computed apart by Python's
    /// cryptography), and signs tokens it verifies; garbage is refused, not trapped on.
    @Test func aKeyStoredByEarlierVersionsKeepsItsKid() throws {
        let pkcs8 = """
            -----BEGIN PRIVATE KEY-----
            MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgVV8RmjaamgMNmVEO
            uUciwJgNEZ4/F9mY3cMS5uNukwKhRANCAARhtvNFOZpFBImhEBulE5/sglamDgGv
            hkLZGYJDN06FPK78Vz9gUwTEDVZSD0kG+WWnBYHsbn/eei3CtpbF5l6r
            -----END PRIVATE KEY-----
            """
        let sec1 = """
            -----BEGIN EC PRIVATE KEY-----
            MHcCAQEEIFVfEZo2mpoDDZlRDrlHIsCYDRGePxfZmN3DEubjbpMCoAoGCCqGSM49
            AwEHoUQDQgAEYbbzRTmaRQSJoRAbpROf7IJWpg4Br4ZC2RmCQzdOhTyu/Fc/YFME
            xA1WUg9JBvllpwWB7G5/3notwraWxeZeqw==
            -----END EC PRIVATE KEY-----
            """
        for pem in [pkcs8, sec1] {
            let key = try SigningKey.load(pem: pem)
            #expect(key.kid == "6JIY314aIcNrvQeFnFtkOeeLBrzbvx4RYEvnvdJGhHo")
            #expect(key.publicJWK["x"] == "YbbzRTmaRQSJoRAbpROf7IJWpg4Br4ZC2RmCQzdOhTw")
            #expect(key.publicJWK["y"] == "rvxXP2BTBMQNVlIPSQb5ZacFgexuf956LcK2lsXmXqs")
            let token = try JWT.sign(claims: ["sub": "u1"], key: key, accessToken: true)
            #expect(JWT.verify(token, keys: [key])?["sub"] == .string("u1"))
            #expect(try SigningKey.load(pem: try key.privateKeyPEM()).kid == key.kid)
        }
        #expect(throws: CryptoError.self) { try SigningKey.load(pem: "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----") }
        // A signature of the wrong size or out of range is refused, never a trap.
        let key = try SigningKey.load(pem: pkcs8)
        #expect(!key.verify(Array("x".utf8), signature: [UInt8](repeating: 0xFF, count: 64)))
        #expect(!key.verify(Array("x".utf8), signature: [UInt8](repeating: 0, count: 63)))
    }
}

@Suite struct Base64URLEncoding {
    /// RFC 4648 §10's vectors, in the URL alphabet without padding, and every length and byte against Foundation.
    @Test func matchesTheRFCAndFoundation() {
        let vectors = ["": "", "f": "Zg", "fo": "Zm8", "foo": "Zm9v", "foob": "Zm9vYg", "fooba": "Zm9vYmE", "foobar": "Zm9vYmFy"]
        for (text, encoded) in vectors { #expect(Base64URL.encode(Array(text.utf8)) == encoded) }
        for length in 0..<70 {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255) } + [0xFB, 0xFF, 0xBF]
            let foundation = Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
                .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
            #expect(Base64URL.encode(bytes) == foundation)
            #expect(Base64URL.encode(bytes[1...]) == Base64URL.encode(Array(bytes[1...])))
            #expect(Base64URL.decode(Base64URL.encode(bytes)) == bytes)
        }
    }
}
