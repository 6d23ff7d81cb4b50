import Logging

/// `log.format: text`: swift-log's standard line (`2026-11-26T09:17:37+0000 info latchkey: key=value [source] message`),
/// in UTC, written through `LogWriter`.
struct TextLogHandler: LogHandler {
    let label: String
    var logLevel: Logger.Level = .info
    var metadata: Logger.Metadata = [:]
    var metadataProvider: Logger.MetadataProvider?

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var line = LogLine()
        line.appendTime(milliseconds: false)
        line.append(byte: UInt8(ascii: " "))
        line.append(event.level.rawValue)
        line.append(byte: UInt8(ascii: " "))
        line.append(label)
        line.append(":")
        for (key, value) in Logger.Metadata.merged(metadata, metadataProvider, event.metadata) {
            line.append(byte: UInt8(ascii: " "))
            line.append(key)
            line.append(byte: UInt8(ascii: "="))
            line.append(value.description)
        }
        line.append(" [")
        line.append(event.source)
        line.append("] ")
        line.append(event.message.description)
        line.append(byte: 0x0A)
        LogWriter.standardError.write(line.bytes, now: event.level >= .warning)
    }
}
