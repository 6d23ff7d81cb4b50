import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
@testable import Latchkey
import LatchkeyTestSupport
import NIOCore

/// The server `serve` runs, built in-process by `buildApplication` from a configuration file in a fresh folder,
/// and driven through its router (no socket).
enum RouterHarness {
    static let client = "11111111-1111-1111-1111-111111111111"
    static let parseMasterKey = "router-tests-master-key-0123456789"
    /// A public client of the hosted pages (a code with PKCE).
    static let pagesClient = "pages-app", pagesCallback = "https://app.example/callback"

    static func application(minPasswordLength: Int = 8) async throws -> some ApplicationProtocol {
        let folder = NSTemporaryDirectory() + "latchkey-router-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let yaml = """
            database: { path: db.sqlite, migrations: \(EngineHarness.migrations) }
            mail: { transport: log }
            log: { level: error }
            clients:
              - { id: \(client), name: tests }
              - { id: \(pagesClient), name: Pages app, redirect_uris: ["\(pagesCallback)"] }
            passwords: { scrypt_log_n: 10, min_length: \(minPasswordLength) }
            limits: { enabled: false }
            app_services:
              apps:
                - { id: auto-app, confirmation: { mode: auto }, reset: { mode: email } }
            parse:
              apps:
                - { id: parse-app, master_key: \(parseMasterKey) }
            """
        try yaml.write(toFile: folder + "/latchkey.yaml", atomically: true, encoding: .utf8)
        return try await buildApplication(LatchkeyConfig.load(path: folder + "/latchkey.yaml", environment: [:]))
    }
}

extension TestClientProtocol {
    /// A form post to the native API, with the test client id unless the fields name another.
    func form(_ path: String, _ fields: [String: String]) async throws -> (HTTPResponse.Status, [String: Any]) {
        var all = ["client_id": RouterHarness.client]
        all.merge(fields) { _, new in new }
        let body = all.map { "\($0.key)=\($0.value.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")" }.joined(separator: "&")
        return try await execute(uri: path, method: .post, headers: [.contentType: "application/x-www-form-urlencoded"],
                                 body: ByteBuffer(string: body)) { ($0.status, Self.object($0.body)) }
    }

    /// A JSON call to the App Services API.
    func json(_ path: String, method: HTTPRequest.Method = .post, _ body: String = "", bearer: String? = nil) async throws
        -> (HTTPResponse.Status, [String: Any], HTTPFields) {
        var headers: HTTPFields = [.contentType: "application/json"]
        if let bearer { headers[.authorization] = "Bearer \(bearer)" }
        return try await execute(uri: path, method: method, headers: headers, body: ByteBuffer(string: body)) {
            ($0.status, Self.object($0.body), $0.headers)
        }
    }

    /// A call to the Parse dialect of the harness's app, as ParseSwift sends it (JSON, the app id header).
    func parse(_ path: String, method: HTTPRequest.Method = .post, _ body: String = "", session: String? = nil, master: Bool = false)
        async throws -> (HTTPResponse.Status, [String: Any]) {
        var headers: HTTPFields = [.contentType: "application/json", HTTPField.Name("X-Parse-Application-Id")!: "parse-app"]
        if let session { headers[HTTPField.Name("X-Parse-Session-Token")!] = session }
        if master { headers[HTTPField.Name("X-Parse-Master-Key")!] = RouterHarness.parseMasterKey }
        return try await execute(uri: "/parse" + path, method: method, headers: headers, body: ByteBuffer(string: body)) {
            ($0.status, Self.object($0.body))
        }
    }

    static func object(_ buffer: ByteBuffer) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(buffer: buffer))) as? [String: Any] ?? [:]
    }
}
