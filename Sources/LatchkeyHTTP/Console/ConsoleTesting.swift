import Foundation
import Hummingbird
import LatchkeyCore

/// What test mode captured and its clock, for a person looking at a test run from a browser (as the emulators'
/// UIs show theirs): the codes and links sent, newest first, and the clock, moved forward or back to real time here
/// as by `POST /testing/v1/clock`.
public struct ConsoleTestMode: Sendable {
    public let testing: any TestingSurface
    public let captured: CapturedProofs
    public init(testing: any TestingSurface, captured: CapturedProofs) { self.testing = testing; self.captured = captured }
}

extension Console {
    func addTestModeRoutes(to console: RouterGroup<LatchkeyRequestContext>) {
        guard let testMode else { return }
        console.get("/testing") { request, context in
            let visit = try await self.visit(request, context)
            let to = request.uri.queryParameters["to"].map(String.init).flatMap { $0.isEmpty ? nil : $0 }
            guard (to?.count ?? 0) <= 320 else { throw ConsoleBadInput(message: "error_query_long") }
            let sent = testMode.captured.page(to: to, before: nil, limit: 100).entries
            var values: [String: Any] = [
                "title": self.word("test_mode", visit), "section": "testing", "to": to ?? "",
                "now": ConsoleFormat.time(testMode.testing.now()), "offset": Self.offsetWords(testMode.testing.clockOffsetSeconds),
                "moved": testMode.testing.clockOffsetSeconds != 0,
                "codes": sent.map { entry -> [String: Any] in
                    ["sent": ConsoleFormat.time(entry.sentAt), "to": entry.to, "purpose": entry.purpose, "channel": entry.channel,
                     "code": entry.code ?? "", "link": entry.link ?? "", "client": entry.clientId ?? "",
                     "state": self.word(entry.used ? "code_used" : entry.expiresAt <= testMode.testing.now() ? "code_expired" : "code_open", visit)]
                },
            ]
            values["notice"] = self.notice(request, visit)
            return self.page("testing", visit, values)
        }
        console.post("/testing/clock") { request, context in
            let (visit, form) = try await self.post(request, context)
            guard let minutes = form["minutes"].flatMap({ Double($0) }), minutes > 0, minutes <= 10 * 365 * 24 * 60 else {
                throw ConsoleBadInput(message: "error_minutes")
            }
            testMode.testing.advanceClock(seconds: minutes * 60)
            return self.redirect("/console/testing", Self.carried(visit, by: minutes * 60), done: "clock_moved")
        }
        console.post("/testing/clock/reset") { request, context in
            let (visit, _) = try await self.post(request, context)
            let offset = testMode.testing.clockOffsetSeconds
            testMode.testing.resetClock()
            return self.redirect("/console/testing", Self.carried(visit, by: -offset), done: "clock_reset")
        }
    }

    /// The operator's own session moved with the clock: the clock is the app's under test, and moving it must not
    /// idle the operator out (forward) or start their session in the future (back).
    static func carried(_ visit: ConsoleVisit, by seconds: Double) -> ConsoleVisit {
        var visit = visit
        visit.session.startedAt += seconds
        visit.session.seenAt += seconds
        return visit
    }

    /// "+1 h 30 min", "+2 d": how far the clock was moved.
    static func offsetWords(_ seconds: Double) -> String {
        let total = Int(seconds.rounded()), days = total / 86_400, hours = total % 86_400 / 3600, minutes = total % 3600 / 60
        let parts = [(days, "d"), (hours, "h"), (minutes, "min")].filter { $0.0 > 0 }.map { "\($0.0) \($0.1)" }
        return parts.isEmpty ? (total > 0 ? "+\(total) s" : "0") : "+" + parts.joined(separator: " ")
    }
}
