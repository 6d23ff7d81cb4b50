import Foundation

public struct SMTPSettings: Sendable {
    public enum Security: String, Sendable { case starttls, tls, none }
    public var host: String
    public var port: Int
    public var username: String?
    public var password: String?
    public var security: Security
    public var verifyCertificate: Bool
    /// Extra trust anchors (PEM) besides the system's, e.g. a private relay's CA.
    public var caFile: String?
    public var heloName: String
    public var timeoutSeconds: Int

    public init(host: String, port: Int, username: String?, password: String?, security: Security,
                verifyCertificate: Bool, caFile: String?, heloName: String, timeoutSeconds: Int) {
        self.host = host; self.port = port; self.username = username; self.password = password; self.security = security
        self.verifyCertificate = verifyCertificate; self.caFile = caFile; self.heloName = heloName; self.timeoutSeconds = timeoutSeconds
    }
}

/// A reply: three-digit code and its text lines.
struct SMTPReply: Sendable, CustomStringConvertible {
    var code: Int
    var lines: [String]
    var isPositive: Bool { (200..<400).contains(code) }
    var isPermanentFailure: Bool { code >= 500 }
    var description: String { "\(code) \(lines.joined(separator: " / "))" }
}

enum SMTPFailure: Error, CustomStringConvertible {
    /// The whole connection failed (refused, timed out, TLS, 4xx/5xx before any message): retry later.
    case connection(String)
    var description: String { if case .connection(let why) = self { return why }; return "" }
}
