import Foundation
import Testing
@testable import Latchkey

/// The one-document exports' records found by their bytes: strings holding brackets and escaped quotes, the wrapper's
/// other members skipped (a Keycloak realm's clients and roles), a cut-off file refused whole.
@Suite struct JSONRecordScannerTests {
    func records(_ text: String) throws -> [String] {
        let data = Data(text.utf8)
        return try JSONRecordScanner.records(in: data).map { String(decoding: data[$0], as: UTF8.self) }
    }

    @Test func arraysAndWrappersYieldEachRecordWhole() throws {
        #expect(try records(#" [ {"a": "]}\"["}, {"b": [1, {"c": 2}]} ,"x", 7 ] "#) == [#"{"a": "]}\"["}"#, #"{"b": [1, {"c": 2}]}"#, #""x""#, "7"])
        #expect(try records(#"{"realm": "r", "clients": [{"users": 1}], "users": [{"id": "u1"}, {"id": "u2"}], "roles": {}}"#)
                == [#"{"id": "u1"}"#, #"{"id": "u2"}"#])
        #expect(try records(#"{"results": []}"#).isEmpty)
        #expect(try records("[]").isEmpty)
    }

    @Test func aCutOffOrWrappedWrongDocumentIsRefusedWhole() {
        for text in [#"[{"a": 1}, {"b": "#, #"{"users": [{"a": 1}]"#, #"[1, 2"#, #"{"users": 5}"#, #"{"other": []}"#, #"[1] trailing"#, #"{"a" 1}"#, ""] {
            #expect(throws: JSONRecordScanner.Failure.self, "\(text)") { try JSONRecordScanner.records(in: Data(text.utf8)) }
        }
    }
}
