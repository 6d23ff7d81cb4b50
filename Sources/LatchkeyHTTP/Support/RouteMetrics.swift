import HTTPTypes
import Metrics
import Synchronization

/// Prometheus series per route template, method and status (`latchkey_http_requests_total`,
/// `latchkey_http_request_duration_seconds`, `latchkey_http_request_errors_total`) and requests in flight per
/// method (`latchkey_http_active_requests`). Handles are made once per series and then only looked up: making one
/// goes through the metrics factory's registry, looking one up is a dictionary read under an uncontended lock.
final class RouteMetrics: Sendable {
    private struct Series: Hashable {
        let route: String
        let method: HTTPRequest.Method
        let status: Int
    }

    private struct Handles {
        let requests: Counter
        let duration: Timer
        let errors: Counter
    }

    private let series = Mutex<[Series: Handles]>([:])
    private let active = Mutex<[HTTPRequest.Method: Meter]>([:])

    func started(_ method: HTTPRequest.Method) -> Meter {
        let meter = active.withLock { meters in
            if let meter = meters[method] { return meter }
            let meter = Meter(label: "latchkey_http_active_requests", dimensions: [("http_request_method", method.rawValue)])
            meters[method] = meter
            return meter
        }
        meter.increment()
        return meter
    }

    /// `thrown`: the answer was made from an error that escaped the route (404, 405, 413, 500, ...).
    func finished(route: String, method: HTTPRequest.Method, status: HTTPResponse.Status, nanoseconds: UInt64, thrown: Bool, active: Meter) {
        let key = Series(route: route, method: method, status: status.code)
        let handles = series.withLock { series in
            if let handles = series[key] { return handles }
            let dimensions = [("http_route", route), ("http_request_method", method.rawValue),
                              ("http_response_status_code", String(status.code))]
            let handles = Handles(
                requests: Counter(label: "latchkey_http_requests_total", dimensions: dimensions),
                duration: Timer(label: "latchkey_http_request_duration_seconds", dimensions: dimensions, preferredDisplayUnit: .seconds),
                errors: Counter(label: "latchkey_http_request_errors_total",
                                dimensions: [("http_route", route), ("http_request_method", method.rawValue), ("error_type", String(status.code))]))
            series[key] = handles
            return handles
        }
        handles.requests.increment()
        handles.duration.recordNanoseconds(Int64(truncatingIfNeeded: nanoseconds))
        if thrown { handles.errors.increment() }
        active.decrement()
    }
}
