import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// The test-mode server: JSON requests, the testing API's wipe, clock, codes and stand-in Apple.
enum TestServer {
    static let base = ProcessInfo.processInfo.environment["LATCHKEY_URL"] ?? "http://127.0.0.1:8080"
    static let password = "correct horse battery"

    struct Answer {
        let status: Int
        let json: [String: Any]
        let location: String?
    }

    /// A request with a JSON body (or a form, for the native API); redirects are not followed.
    static func call(_ method: String, _ path: String, json: Any? = nil, form: [String: String]? = nil,
                     headers: [String: String] = [:]) async throws -> Answer {
        var request = URLRequest(url: URL(string: path.hasPrefix("http") ? path : base + path)!)
        request.httpMethod = method
        if let json {
            request.httpBody = try JSONSerialization.data(withJSONObject: json)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        } else if let form {
            var allowed = CharacterSet.alphanumerics
            allowed.insert(charactersIn: "-._~")
            request.httpBody = form.map { "\($0.key)=\($0.value.addingPercentEncoding(withAllowedCharacters: allowed)!)" }
                .joined(separator: "&").data(using: .utf8)
            request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        }
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let (data, response) = try await session.data(for: request)
        let http = response as! HTTPURLResponse
        let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
        return Answer(status: http.statusCode, json: object, location: http.value(forHTTPHeaderField: "Location"))
    }

    /// A session that hands redirects back instead of following them.
    static let session = URLSession(configuration: .ephemeral, delegate: NoRedirects(), delegateQueue: nil)

    static func wipe() async throws {
        _ = try await call("DELETE", "/testing/v1/data")
        _ = try await call("DELETE", "/testing/v1/clock")
    }

    static func advanceClock(seconds: Int) async throws {
        _ = try await call("POST", "/testing/v1/clock", json: ["advance_seconds": seconds])
    }

    /// The newest code or link of `purpose` sent to `to`.
    static func latest(to: String, purpose: String) async throws -> [String: Any] {
        var components = URLComponents(string: base + "/testing/v1/codes")!
        components.queryItems = [URLQueryItem(name: "to", value: to)]
        let codes = try await call("GET", components.string!).json["codes"] as? [[String: Any]] ?? []
        return try XCTUnwrap(codes.first { $0["purpose"] as? String == purpose })
    }

    static func appleToken(sub: String) async throws -> String {
        let answer = try await call("POST", "/testing/v1/issuer/apple/id-token", json: ["sub": sub])
        return try XCTUnwrap(answer.json["id_token"] as? String)
    }

    static func newEmail() -> String { "swift-\(UUID().uuidString.prefix(8).lowercased())@example.com" }
}

/// URLSession follows redirects by default; the tests read them.
final class NoRedirects: NSObject, URLSessionTaskDelegate, Sendable {
    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                    newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void) {
        completionHandler(nil)
    }
}
