import Foundation
import Synchronization
import LatchkeyCore

/// The repository's OpenAPI document as this deployment serves it: its public URL as the server, the Parse paths
/// under the configured mount (or gone when no Parse app is configured), the App Services paths gone when no app is
/// configured, the testing mailbox gone when it is off, the admin listener's operations pointing at it (or gone when
/// it is off). Adjusted and encoded once at start, so every deployment serves a document that holds for it.
enum OpenAPIDocument {
    /// What the admin listener serves: the admin API and the metrics.
    static func isAdmin(_ path: String) -> Bool { path.hasPrefix("/admin/") || path == "/metrics" }

    /// The identifiers this deployment accepts, written into the document as enums.
    struct KnownIds {
        var clients: [String]
        var parseApps: [String]
        var appServicesApps: [String]
    }

    /// The document to serve, and the public listener's routes (the admin paths are served elsewhere); both made off
    /// the start's path (`RouteTable.prepareInBackground`), or when first asked for: decoding the document was a tenth
    /// of the time from start to ready.
    static func prepare(_ text: String, publicURL: String, parseMount: String?, adminURL: String?, testingMailbox: Bool, testMode: Bool = false,
                        known: KnownIds)
        -> (document: Deferred<JSONResponse.Prepared>, routes: RouteTable) {
        let adjusted = Deferred {
            adjust(text, publicURL: publicURL, parseMount: parseMount, adminURL: adminURL, testingMailbox: testingMailbox, testMode: testMode,
                   known: known)
        }
        return (Deferred { adjusted.value.document }, RouteTable(deferred: { adjusted.value.paths }) { !isAdmin($0) })
    }

    private static func adjust(_ text: String, publicURL: String, parseMount: String?, adminURL: String?, testingMailbox: Bool, testMode: Bool,
                               known: KnownIds) -> (document: JSONResponse.Prepared, paths: [String: JSONValue]) {
        guard case .object(var document)? = decoded(text),
              case .object(let paths)? = document["paths"] else { return (JSONResponse.Prepared(["error": "no document"]), [:]) }
        document["servers"] = [.object(["url": .string(publicURL)])]
        var adjusted: [String: JSONValue] = [:]
        for (path, item) in paths {
            if path == "/parse" || path.hasPrefix("/parse/") {
                guard let parseMount else { continue }
                adjusted[parseMount + path.dropFirst("/parse".count)] = item
            } else if path.hasPrefix(AppServicesRoutes.prefix + "/app/") && known.appServicesApps.isEmpty {
                continue
            } else if path == "/testing/v1/mail" && !testingMailbox {
                continue
            } else if path.hasPrefix("/testing/") && path != "/testing/v1/mail" && !testMode {
                continue
            } else if isAdmin(path) {
                guard let adminURL, case .object(var operations) = item else { continue }
                for (method, operation) in operations {
                    guard case .object(var fields) = operation else { continue }
                    fields["servers"] = [.object(["url": .string(adminURL)])]
                    operations[method] = .object(fields)
                }
                adjusted[path] = .object(operations)
            } else {
                adjusted[path] = item
            }
        }
        document["paths"] = .object(adjusted)
        if case .object(var components)? = document["components"] {
            components.set(["schemas", "NativeForm", "properties", "client_id", "enum"], known.clients)
            components.set(["parameters", "ParseApplicationId", "schema", "enum"], known.parseApps)
            components.set(["parameters", "AppServicesApp", "schema", "enum"], known.appServicesApps)
            document["components"] = .object(components)
        }
        return (JSONResponse.Prepared(document), adjusted)
    }

    /// The admin listener's routes: the document's `/admin/` paths.
    static func adminRoutes(_ text: String) -> RouteTable {
        RouteTable(deferred: {
            guard case .object(let document)? = decoded(text), case .object(let paths)? = document["paths"] else { return [:] }
            return paths
        }) { isAdmin($0) }
    }

    /// The document decoded once for both listeners: decoding it was a fifth of the time from start to ready.
    private static let lastDecoded = Mutex<(text: String, value: JSONValue?)?>(nil)

    private static func decoded(_ text: String) -> JSONValue? {
        if let last = lastDecoded.withLock({ $0 }), last.text == text { return last.value }
        let value = try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
        lastDecoded.withLock { $0 = (text, value) }
        return value
    }
}

private extension Dictionary where Key == String, Value == JSONValue {
    /// Sets the string list at `path` (a chain of objects), when the list is not empty and the chain exists.
    mutating func set(_ path: [String], _ values: [String]) {
        guard let first = path.first, !values.isEmpty else { return }
        if path.count == 1 { self[first] = .array(values.map(JSONValue.string)); return }
        guard case .object(var inner)? = self[first] else { return }
        inner.set(Array(path.dropFirst()), values)
        self[first] = .object(inner)
    }
}
