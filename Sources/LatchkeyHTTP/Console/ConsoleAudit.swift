import Foundation
import HTTPTypes
import Hummingbird
import LatchkeyCore
import NIOCore

/// The audit trail, newest first, filtered by kind, user, IP address and time; the same filter exported as JSON lines.
extension Console {
    /// The most one export writes (oldest first): beyond it, narrow the time range.
    static let exportLimit = 100_000

    func addAuditRoutes(to console: RouterGroup<LatchkeyRequestContext>) {
        console.get("/audit") { request, context in
            let visit = try await self.visit(request, context)
            let (query, filter) = try await self.auditQuery(request)
            var page = query
            page.newestFirst = true
            page.limit = 100
            page.beforeId = try request.uri.queryParameters["before"].map { text -> Int64 in
                guard let id = Int64(text), id > 0 else { throw ConsoleBadInput(message: "error_event_id") }
                return id
            }
            let events = try await self.engine.adminAuditEvents(page)
            var values: [String: Any] = ["title": self.word("audit", visit), "section": "audit", "events": events.map(Self.eventRow),
                                         "none": events.isEmpty, "filter": filter, "export": "/console/audit/export?" + Self.queryString(filter)]
            if events.count == page.limit, let last = events.last?.id {
                values["older"] = "/console/audit?" + Self.queryString(filter.merging(["before": String(last)]) { $1 })
            }
            return self.page("audit", visit, values)
        }
        console.get("/audit/export") { request, context in
            let visit = try await self.visit(request, context)
            let (query, _) = try await self.auditQuery(request)
            let engine = self.engine
            let headers: HTTPFields = [
                .contentType: "application/x-ndjson; charset=utf-8", .cacheControl: "no-store",
                .contentDisposition: "attachment; filename=\"latchkey-audit.jsonl\"",
                .setCookie: self.cookie.set(engine.sealConsoleSession(visit.session)),
            ]
            // Written a thousand events at a time as they are read, oldest first: the export never sits in memory whole.
            return Response(status: .ok, headers: headers, body: ResponseBody { writer in
                var page = query
                page.limit = 1000
                var written = 0
                while written < Self.exportLimit {
                    let events = try await engine.adminAuditEvents(page)
                    guard !events.isEmpty else { break }
                    var buffer = ByteBuffer()
                    for event in events {
                        buffer.writeBytes(JSONWriter.bytes(AdminRoutes.event(event)))
                        buffer.writeInteger(UInt8(ascii: "\n"))
                    }
                    try await writer.write(buffer)
                    written += events.count
                    guard events.count == page.limit, let last = events.last?.id else { break }
                    page.afterId = last
                }
                try await writer.finish(nil)
            })
        }
    }

    /// The filter form's fields (`kind`, `user`, `ip`, `since`, `until`) as a query, and as they were given (to
    /// show them again and to link with). The user may be named any way the search takes; the last 7 days by default.
    private func auditQuery(_ request: Request) async throws -> (AuditQuery, [String: String]) {
        var filter: [String: String] = [:]
        for name in ["kind", "user", "ip", "since", "until"] {
            if let value = request.uri.queryParameters[Substring(name)]?.trimmingCharacters(in: .whitespaces), !value.isEmpty {
                guard value.count <= 320 else { throw ConsoleBadInput(message: "error_query_long") }
                filter[name] = value
            }
        }
        func time(_ name: String) throws -> Date? {
            try filter[name].map { text in
                guard let date = ConsoleFormat.parseTime(text) else { throw ConsoleBadInput(message: "error_time") }
                return date
            }
        }
        var query = AuditQuery(since: try time("since") ?? engine.time.now() - 7 * 86_400, until: try time("until"), kind: filter["kind"],
                               clientIp: filter["ip"], limit: 100)
        if let user = filter["user"] { query.userId = try await engine.adminFindUser(user).id }
        return (query, filter)
    }

    static func queryString(_ filter: [String: String]) -> String {
        filter.sorted { $0.key < $1.key }.map { "\($0.key)=\(ConsoleErrors.escape($0.value))" }.joined(separator: "&")
    }
}
