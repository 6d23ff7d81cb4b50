import Logging

/// `log.format: json`: one JSON object per line on standard error (time, level, message, label, metadata), for log
/// shippers. Metadata values are written as strings, as the text format writes them; lists and dictionaries too.
struct JSONLogHandler: LogHandler {
    let label: String
    var logLevel: Logger.Level = .info
    var metadata: Logger.Metadata = [:]
    var metadataProvider: Logger.MetadataProvider?

    private static let reserved: Set<String> = ["time", "level", "message", "label"]

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var line = LogLine()
        line.append("{\"time\":\"")
        line.appendTime(milliseconds: true)
        line.append("\",\"level\":")
        line.appendJSONString(event.level.rawValue)
        line.append(",\"message\":")
        line.appendJSONString(event.message.description)
        line.append(",\"label\":")
        line.appendJSONString(label)
        for (key, value) in Logger.Metadata.merged(metadata, metadataProvider, event.metadata) where !Self.reserved.contains(key) {
            line.append(byte: UInt8(ascii: ","))
            line.appendJSONString(key)
            line.append(byte: UInt8(ascii: ":"))
            line.appendJSONString(value.description)
        }
        line.append("}\n")
        LogWriter.standardError.write(line.bytes, now: event.level >= .warning)
    }
}
