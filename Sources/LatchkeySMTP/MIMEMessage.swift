import Foundation
import LatchkeyCore

/// RFC 5322 / MIME rendering of a mail: multipart/alternative (text + HTML), UTF-8 bodies in base64
/// (so no line exceeds 76 characters whatever the content), RFC 2047 encoded subject and display names,
/// `Date` and `Message-ID`, CRLF line endings.
public struct MIMEMessage: Sendable {
    public let from: MailAddress
    public let message: MailMessage
    public let date: Date
    public let messageID: String

    public init(from: MailAddress, message: MailMessage, date: Date = Date()) {
        self.from = from
        self.message = message
        self.date = date
        let domain = from.address.split(separator: "@").last.map(String.init) ?? "localhost"
        self.messageID = "<\(SecureRandom.uuidString())@\(domain)>"
    }

    /// The message as sent after DATA (before dot-stuffing), CRLF separated.
    public func render() -> String {
        let boundary = "=_latchkey_" + SecureRandom.bytes(16).hex
        var lines = [
            "From: \(from.headerValue)",
            "To: <\(message.to)>",
            "Subject: \(Self.encodedWord(message.subject))",
            "Date: \(Self.rfc5322Date(date))",
            "Message-ID: \(messageID)",
            "MIME-Version: 1.0",
            "Content-Type: multipart/alternative;\r\n boundary=\"\(boundary)\"",  // folded: lines stay under 78
            "",
            "This is a multi-part message in MIME format.",
        ]
        for (type, body) in [("text/plain", message.text), ("text/html", message.html)] {
            lines += ["--\(boundary)", "Content-Type: \(type); charset=utf-8", "Content-Transfer-Encoding: base64", ""]
            lines += Self.base64Lines(body)
        }
        lines.append("--\(boundary)--")
        return lines.joined(separator: "\r\n") + "\r\n"
    }

    /// DATA payload: lines starting with "." get another one (RFC 5321 §4.5.2), then the end marker.
    public static func dotStuffed(_ rendered: String) -> String {
        var body = rendered.components(separatedBy: "\r\n").map { $0.hasPrefix(".") ? "." + $0 : $0 }.joined(separator: "\r\n")
        if !body.hasSuffix("\r\n") { body += "\r\n" }
        return body + ".\r\n"
    }

    /// RFC 2047 `=?utf-8?B?...?=` words (each at most 75 characters) when the text is not plain ASCII.
    public static func encodedWord(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { !$0.isASCII || $0.value < 0x20 }) else { return text }
        var words: [String] = [], chunk: [UInt8] = []
        for character in text {
            let bytes = Array(String(character).utf8)
            if chunk.count + bytes.count > 40 {  // 40 bytes: 56 base64 chars + 12 of wrapping, room for "Subject: "
                words.append("=?utf-8?B?\(Data(chunk).base64EncodedString())?=")
                chunk = []
            }
            chunk += bytes  // never split a character across words
        }
        if !chunk.isEmpty { words.append("=?utf-8?B?\(Data(chunk).base64EncodedString())?=") }
        return words.joined(separator: "\r\n ")
    }

    static func base64Lines(_ text: String) -> [String] {
        let encoded = Data(text.utf8).base64EncodedString()
        return stride(from: 0, to: encoded.count, by: 76).map { start in
            let from = encoded.index(encoded.startIndex, offsetBy: start)
            return String(encoded[from..<encoded.index(from, offsetBy: min(76, encoded.count - start))])
        }
    }

    static func rfc5322Date(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss '+0000'"
        return formatter.string(from: date)
    }
}

/// A sender: address plus optional display name.
public struct MailAddress: Sendable, Equatable {
    public var address: String
    public var name: String?
    public init(address: String, name: String?) { self.address = address; self.name = name }

    var headerValue: String {
        guard let name, !name.isEmpty else { return "<\(address)>" }
        let isPlain = name.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || $0 == " " || $0.properties.numericType != nil) }
        let display = isPlain ? "\"\(name)\"" : MIMEMessage.encodedWord(name)
        let separator = display.count + address.count > 64 ? "\r\n " : " "  // fold long From lines
        return display + separator + "<\(address)>"
    }
}
