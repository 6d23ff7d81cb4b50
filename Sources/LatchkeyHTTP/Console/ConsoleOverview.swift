import Foundation
import Hummingbird
import LatchkeyCore

/// The first page: sign-ups, sign-ins by outcome and dialect, lockouts and rate-limit denials over 24 hours and 30
/// days, and the health of the database, the mail relay and the signing key.
extension Console {
    func overview(_ visit: ConsoleVisit) async throws -> Response {
        let overview = try await engine.adminOverview()
        let now = engine.time.now()
        let keyAge = overview.signingKeyCreatedAt.map { Int(now.timeIntervalSince($0) / 86_400) }
        let values: [String: Any] = [
            // The day axis names the date too: its 24 hours usually span two.
            "title": word("overview", visit), "section": "overview",
            "windows": [window(overview.day, visit, name: "day", label: { String(ConsoleFormat.time($0).dropFirst(5).prefix(11)) }),
                        window(overview.month, visit, name: "month", label: { String(ConsoleFormat.time($0).dropFirst(5).prefix(5)) })],
            "databaseReady": overview.databaseReady, "mailPending": overview.mailPending, "mailFailed": overview.mailFailed,
            "mailWell": overview.mailFailed == 0, "lastMailError": overview.lastMailError ?? "",
            "lastMailSent": ConsoleFormat.time(overview.lastMailSentAt),
            "keyAge": keyAge.map(String.init) ?? "–", "keyOld": (keyAge ?? 0) > 180,
        ]
        return page("overview", visit, values)
    }

    private func window(_ window: DeploymentOverview.Window, _ visit: ConsoleVisit, name: String,
                        label: (Date) -> String) -> [String: Any] {
        let last = window.start + Double(window.bucketSeconds * ((window.counts["sign_in"]?.count ?? 1) - 1))
        func chart(_ id: String, _ title: String, _ series: [(String, String)]) -> [String: Any] {
            let bars = BarChart(series: series.map { (window.counts[$0.0] ?? [], $0.1) })
            return ["id": "\(name)-\(id)", "title": word(title, visit), "svg": bars.svg, "peak": bars.peak,
                    "first": label(window.start), "last": label(last),
                    "legend": series.map { ["color": $0.1, "label": word("kind_\($0.0)", visit), "total": window.total($0.0)] }]
        }
        return [
            "heading": word("window_\(name)", visit), "name": name,
            "charts": [chart("sign-ups", "chart_sign_ups", [("sign_up", "info")]),
                       chart("sign-ins", "chart_sign_ins", [("sign_in", "good"), ("sign_in_failed", "bad")]),
                       chart("lockouts", "chart_lockouts", [("lockout", "warn")]),
                       chart("limits", "chart_rate_limited", [("rate_limited", "bad")])],
            "dialects": window.signInsByDialect.sorted { $0.key < $1.key }.map {
                // Events from before dialects were recorded have none; an unknown name is shown as it is.
                ["dialect": CallerDialect(rawValue: $0.key).map { word("dialect_\($0.rawValue)", visit) } ?? $0.key,
                 "succeeded": $0.value.succeeded, "failed": $0.value.failed]
            },
        ]
    }
}
