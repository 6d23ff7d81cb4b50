import Foundation
import Logging

/// `log.format: json`: one JSON object per line on standard error (time, level, message, label, metadata), for log
/// shippers. Metadata values are written as strings, as the text format writes them.
struct JSONLogHandler: LogHandler {
    let label: String
    var logLevel: Logger.Level = .info
    var metadata: Logger.Metadata = [:]
    var metadataProvider: Logger.MetadataProvider?

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var merged = metadata
        if let provided = metadataProvider?.get() { merged.merge(provided) { _, new in new } }
        if let extra = event.metadata { merged.merge(extra) { _, new in new } }
        var line: [String: Any] = ["time": Self.timestamp(), "level": event.level.rawValue, "message": event.message.description, "label": label]
        for (key, value) in merged where line[key] == nil { line[key] = Self.plain(value) }
        guard var data = try? JSONSerialization.data(withJSONObject: line, options: [.sortedKeys, .withoutEscapingSlashes]) else { return }
        data.append(0x0A)
        FileHandle.standardError.write(data)
    }

    private static func plain(_ value: Logger.Metadata.Value) -> Any {
        switch value {
        case .string(let text): return text
        case .stringConvertible(let value): return value.description
        case .array(let values): return values.map(plain)
        case .dictionary(let values): return values.mapValues(plain)
        }
    }

    private static func timestamp() -> String {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        var time = tm()
        var seconds = now.tv_sec
        gmtime_r(&seconds, &time)
        return String(format: "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", time.tm_year + 1900, time.tm_mon + 1, time.tm_mday,
                      time.tm_hour, time.tm_min, time.tm_sec, now.tv_nsec / 1_000_000)
    }
}
