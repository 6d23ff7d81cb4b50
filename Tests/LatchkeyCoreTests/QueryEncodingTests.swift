import Foundation
import Testing
@testable import LatchkeyCore

@Suite struct QueryEncodingTests {
    @Test func onlyUnreservedCharactersStayAsTheyAre() {
        #expect(QueryEncoding.encode("aZ09-._~") == "aZ09-._~")
        #expect(QueryEncoding.encode("a b+c&d=e#f/g?h%") == "a%20b%2Bc%26d%3De%23f%2Fg%3Fh%25")
        #expect(QueryEncoding.encode("é✓") == "%C3%A9%E2%9C%93")
        // What a form decoder reads back is what was encoded, `+` included.
        let value = "x+y z&é=1"
        let decoded = URLComponents(string: "https://a.example/?v=" + QueryEncoding.encode(value))?.queryItems?.first?.value
        #expect(decoded == value)
    }

    @Test func parametersJoinTheRegisteredQueryWhichIsKeptByteForByte() {
        let plain = QueryEncoding.appending(["code": "c+1", "state": nil, "iss": "https://id.example"], to: "https://app.example/cb")
        #expect(plain == "https://app.example/cb?code=c%2B1&iss=https%3A%2F%2Fid.example")
        #expect(QueryEncoding.appending(["code": "c"], to: "https://app.example/cb?tenant=a+b") == "https://app.example/cb?tenant=a+b&code=c")
        #expect(QueryEncoding.appending(["code": "c"], to: "https://app.example/cb?") == "https://app.example/cb?code=c")
        #expect(QueryEncoding.appending(["code": "c"], to: "myapp://cb#frag") == "myapp://cb?code=c#frag")
        #expect(QueryEncoding.appending(["state": nil], to: "https://app.example/cb") == "https://app.example/cb")
    }
}
