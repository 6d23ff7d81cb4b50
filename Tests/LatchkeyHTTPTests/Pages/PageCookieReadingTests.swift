import Testing
@testable import LatchkeyHTTP

/// A page reads its cookies from the `Cookie` header's bytes: the first pair with the name, blanks around the name
/// and the value ignored, an empty or oversized value as none.
@Suite struct PageCookieReadingTests {
    static func value(_ name: String, _ header: String, limit: Int = 512) -> String?? {
        PageCookies.read(name, fromHeader: header, limit: limit)
    }

    @Test func theNamedPairIsFoundAmongOthers() {
        #expect(Self.value("latchkey_csrf", "a=1; latchkey_csrf=abc-_.~; b=2") == .some("abc-_.~"))
        #expect(Self.value("b", "a=1;b=2") == .some("2"))
        #expect(Self.value("a", " \ta = x=y ;") == .some("x=y"))  // blanks trimmed, an `=` in the value kept
        #expect(Self.value("a", "a=1; a=2") == .some("1"))  // the first, when a browser sends several
        #expect(Self.value("a", "ab=1; ba=2; a") == nil)
        #expect(Self.value("a", "") == nil)
        #expect(Self.value("a", ";;; =x; a=;") == nil)  // empty pairs, an empty name, an empty value: skipped
        #expect(Self.value("é", "é=1") == .some("1"))
    }

    @Test func anEmptyOrOversizedValueIsNone() {
        #expect(Self.value("a", "a=  ; a=2") == .some(nil))
        #expect(Self.value("a", "a=" + String(repeating: "x", count: 513)) == .some(nil))
        #expect(Self.value("a", "a=" + String(repeating: "x", count: 512)) == .some(String(repeating: "x", count: 512)))
    }
}
