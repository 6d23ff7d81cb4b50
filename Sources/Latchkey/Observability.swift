import Foundation
import Logging
import Metrics
import Prometheus
import Synchronization

/// The process-wide logging and metrics backends. Each can be installed once per process; in-process tests build
/// several servers, so the first configuration wins and later calls do nothing.
enum Observability {
    private static let installed = Mutex<(logging: Bool, metrics: Bool)>((false, false))
    static let registry = PrometheusCollectorRegistry()

    static func bootstrapLogging(format: LogSettings.Format) {
        let first = installed.withLock { state in defer { state.logging = true }; return !state.logging }
        guard first else { return }
        switch format {
        case .text: LoggingSystem.bootstrap { TextLogHandler(label: $0) }
        case .json: LoggingSystem.bootstrap { JSONLogHandler(label: $0) }
        }
    }

    static func bootstrapMetrics() {
        let first = installed.withLock { state in defer { state.metrics = true }; return !state.metrics }
        guard first else { return }
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.nameAndLabelSanitizer = { name, labels in (prometheusName(name), labels.map { (prometheusLabel($0.0), $0.1) }) }
        MetricsSystem.bootstrap(factory)
    }

    /// Hummingbird names its metrics with dots (OpenTelemetry style); Prometheus wants `[a-zA-Z_:][a-zA-Z0-9_:]*`.
    static func prometheusName(_ name: String) -> String {
        switch name {
        case "hb.requests": return "latchkey_http_requests_total"
        case "hb.request.errors": return "latchkey_http_request_errors_total"
        case "http.server.request.duration": return "latchkey_http_request_duration_seconds"
        case "http.server.active_requests": return "latchkey_http_active_requests"
        default: return prometheusLabel(name)
        }
    }

    static func prometheusLabel(_ name: String) -> String {
        String(name.map { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") ? $0 : "_" })
    }

    static func metricsText() -> [UInt8] {
        var buffer: [UInt8] = []
        buffer.reserveCapacity(16 * 1024)
        registry.emit(into: &buffer)
        return buffer
    }
}
