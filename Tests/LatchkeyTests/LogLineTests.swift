import Foundation
@testable import Latchkey
@testable import LatchkeyHTTP
import Logging
import Testing

/// The request line is formatted without swift-log's dictionaries; it must still read as the handlers write lines.
@Suite struct LogLineTests {
    let entry = RequestLogEntry(requestId: "0f8fad5b-d9cb-469f-a165-70867728950e", method: "GET", route: "/oidc/userinfo", status: 200,
                                nanoseconds: 1_234_567)

    @Test func theTextRequestLineHasTheStandardShape() {
        let line = String(decoding: RequestLogLine.text(entry), as: UTF8.self)
        let pattern = #"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+0000 info latchkey: duration_ms=1\.23 method=GET "#
            + #"request_id=0f8fad5b-d9cb-469f-a165-70867728950e route=/oidc/userinfo status=200 \[LatchkeyHTTP\] request\n$"#
        #expect(line.range(of: pattern, options: .regularExpression) != nil, "\(line)")
    }

    @Test func theJSONRequestLineIsOneObjectWithStringValues() throws {
        let bytes = RequestLogLine.json(RequestLogEntry(requestId: "a\"b", method: "POST", route: "/x", status: 405, nanoseconds: 50_000))
        #expect(bytes.last == 0x0A)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(bytes.dropLast())) as? [String: String])
        #expect(object["message"] == "request" && object["level"] == "info" && object["request_id"] == "a\"b")
        #expect(object["status"] == "405" && object["duration_ms"] == "0.05" && object["route"] == "/x" && object["time"] != nil)
    }

    @Test func hummingbirdsRequestIdIsNamedRequestIdUnlessTheClientNamedTheRequest() {
        let base: Logger.Metadata = ["hb.request.id": "abc", "z": "1"]
        #expect(Logger.Metadata.merged(base, nil, ["a": "2"]).map(\.key) == ["a", "request_id", "z"])
        #expect(Logger.Metadata.merged(base, nil, nil).first { $0.key == "request_id" }?.value.description == "abc")
        let named: Logger.Metadata = ["hb.request.id": "abc", "request_id": "client"]
        #expect(Logger.Metadata.merged(named, nil, nil).map(\.key) == ["request_id"])
        #expect(Logger.Metadata.merged(named, nil, ["request_id": "event"]).map(\.value.description) == ["event"])
    }
}
