import Foundation
import Testing
@testable import LatchkeyCore

@Suite struct JSONShapeTests {
    @Test func depthAndElementCountAreBounded() {
        #expect(JSONShape.isWithin(Data(#"{"a":[1,2,{"b":"[[[[[[[[[["}]}"#.utf8), .request))  // brackets in strings do not count
        #expect(!JSONShape.isWithin(Data((String(repeating: "[", count: 9) + String(repeating: "]", count: 9)).utf8), .request))
        #expect(!JSONShape.isWithin(Data(("[" + Array(repeating: "1", count: 3000).joined(separator: ",") + "]").utf8), .request))
        #expect(JSONValue.decodeUntrusted([String: JSONValue].self, from: Data(#"{"x":"a\"]]]]]]]]]]]"}"#.utf8)) == ["x": .string("a\"]]]]]]]]]]]")])
    }

    @Test func valuesDecodeByKind() throws {
        let decoded = try JSONDecoder().decode(JSONValue.self, from: Data(#"{"a":[1,2.5,"s",true,null,{"b":[]}]}"#.utf8))
        #expect(decoded == .object(["a": .array([.int(1), .double(2.5), .string("s"), .bool(true), .null, .object(["b": .array([])])])]))
    }
}

@Suite struct ScryptBudgetTests {
    @Test func storedHashesBeyondTheMemoryBudgetAreRefused() {
        let salt = PasswordHasher.b64(Array(repeating: 1, count: 16)), key = PasswordHasher.b64(Array(repeating: 2, count: 32))
        #expect(PasswordHasher.parse("$scrypt$ln=17,r=8,p=1$\(salt)$\(key)") != nil)
        #expect(PasswordHasher.parse("$scrypt$ln=22,r=32,p=1$\(salt)$\(key)") == nil)    // 16 GiB
        #expect(PasswordHasher.parse("$scrypt$ln=18,r=8,p=2$\(salt)$\(key)") == nil)     // 512 MiB
        #expect(PasswordHasher.parse("$scrypt$ln=17,r=8,p=1$\(salt)$\(PasswordHasher.b64(Array(repeating: 2, count: 4096)))") == nil)
        #expect(!ScryptParameters(logN: 20, r: 8, p: 1).isWithinMemoryBudget)
        #expect(ScryptParameters(logN: 17, r: 8, p: 1).isWithinMemoryBudget)
    }
}

@Suite struct RateLimitKeyTests {
    @Test func ipv6ClientsShareTheirSlash64() {
        #expect(RateLimitSubject.network(of: "2001:db8:1:2:aaaa::1") == RateLimitSubject.network(of: "2001:db8:1:2:ffff:1:2:3"))
        #expect(RateLimitSubject.network(of: "2001:db8:1:2::1") != RateLimitSubject.network(of: "2001:db8:1:3::1"))
        #expect(RateLimitSubject.network(of: "2001:db8:1:2::1") == "2001:db8:1:2::/64")
        #expect(RateLimitSubject.network(of: "192.0.2.7") == "192.0.2.7")
        #expect(RateLimitSubject.network(of: "::ffff:192.0.2.7") == "192.0.2.7")
    }

    @Test func theLimiterStaysWithinItsKeyBudget() {
        let limiter = RateLimiter(maxKeys: 1000)
        let now = Date(timeIntervalSince1970: 1_000_000)
        for i in 0..<5000 { _ = limiter.take("k\(i)", rule: RateRule(1, per: 60), now: now) }
        #expect(limiter.count == 1000)
        limiter.prune(now: now + 86401)
        #expect(limiter.count == 0)
    }
}

@Suite struct EmailAddressTests {
    @Test func onlyPlainAddressesNormalize() {
        #expect(EmailAddress.normalize(" Ada@Example.COM ") == "ada@example.com")
        for bad in ["a\u{0}b@example.com", "a@example.com\u{0}x", "a\u{1b}@example.com", "ü@example.com", "a@exämple.com",
                    "a@example", "a@@example.com", "\"a b\"@example.com", String(repeating: "a", count: 65) + "@example.com"] {
            #expect(EmailAddress.normalize(bad) == nil, "\(bad)")
        }
        #expect(TerminalText.escape("ok\u{1b}[2Jx\u{7}") == "ok\\x1B[2Jx\\x07")
    }
}

@Suite struct CommandFunctionTests {
    @Test func aChildThatNeverReadsItsInputFailsWithinTheDeadline() async {
        // 1 MiB of arguments to a child that sleeps: writing stdin would block forever on a full pipe.
        let function = CommandFunction(argv: ["/bin/sleep", "30"], timeoutSeconds: 1)
        let start = Date()
        let outcome = await function.call([.string(String(repeating: "x", count: 1 << 20))])
        #expect(outcome.status == .fail)
        // Not a speed bound: the child sleeps 30 s, so any answer well before that means the 1 s deadline ended it
        // (a blocked write would have waited for the child). Generous, so a busy machine cannot fail it.
        #expect(Date().timeIntervalSince(start) < 20)
    }
}
