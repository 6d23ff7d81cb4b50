import LatchkeyHTTP
import Logging

/// Each request's line, in the configured format, as the log handlers would write `logger.info("request",
/// metadata: [duration_ms, method, request_id, route, status])` from the HTTP side, but formatted straight into
/// bytes (see `RequestLogEntry`).
enum RequestLogLine {
    /// Nil when `level` is above `info`: no request lines at all.
    static func writer(format: LogSettings.Format, level: Logger.Level) -> RequestLog? {
        guard level <= .info else { return nil }
        switch format {
        case .text: return { entry in LogWriter.standardError.write(text(entry), now: false) }
        case .json: return { entry in LogWriter.standardError.write(json(entry), now: false) }
        }
    }

    static func text(_ entry: RequestLogEntry) -> [UInt8] {
        var line = LogLine()
        line.appendTime(milliseconds: false)
        line.append(" info latchkey: duration_ms=")
        line.appendMilliseconds(entry.nanoseconds)
        line.append(" method="); line.append(entry.method)
        line.append(" request_id="); line.append(entry.requestId)
        line.append(" route="); line.append(entry.route)
        line.append(" status="); line.append(String(entry.status))
        line.append(" [LatchkeyHTTP] request\n")
        return line.bytes
    }

    static func json(_ entry: RequestLogEntry) -> [UInt8] {
        var line = LogLine()
        line.append("{\"time\":\"")
        line.appendTime(milliseconds: true)
        line.append("\",\"level\":\"info\",\"message\":\"request\",\"label\":\"latchkey\",\"duration_ms\":\"")
        line.appendMilliseconds(entry.nanoseconds)
        line.append("\",\"method\":"); line.appendJSONString(entry.method)
        line.append(",\"request_id\":"); line.appendJSONString(entry.requestId)
        line.append(",\"route\":"); line.appendJSONString(entry.route)
        line.append(",\"status\":\""); line.append(String(entry.status))
        line.append("\"}\n")
        return line.bytes
    }
}
