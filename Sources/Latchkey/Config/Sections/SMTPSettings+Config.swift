import Foundation
import LatchkeySMTP

/// `mail.smtp.*`: the relay. Nil when no host is set (required with `mail.transport: smtp`).
extension SMTPSettings: ConfigSection {
    static let section = "mail.smtp"
    static let keys = ["host", "port", "username", "password", "password_file", "tls", "verify_certificate", "ca_file",
                       "timeout_seconds", "helo"]

    static func read(_ config: SectionReader, required: Bool, helo: String) throws -> SMTPSettings? {
        let host = try config.string("host", default: "")
        let tlsName = try config.string("tls", default: "starttls")
        guard let security = Security(rawValue: tlsName) else { throw config.error("tls", "must be starttls, tls or none") }
        var password = try config.string("password", default: "", secret: true)
        if let file = try config.path("password_file", default: nil) {
            guard let text = try? String(contentsOfFile: file, encoding: .utf8) else {
                throw config.error("password_file", "cannot read \(file)")
            }
            password = text.trimmingCharacters(in: .newlines)
        }
        let settings = SMTPSettings(
            host: host, port: try config.int("port", default: security == .tls ? 465 : 587, range: 1...65535),
            username: try config.string("username", default: "").nonEmpty, password: password.nonEmpty,
            security: security, verifyCertificate: try config.bool("verify_certificate", default: true),
            caFile: try config.readableFile("ca_file"), heloName: try config.string("helo", default: helo),
            timeoutSeconds: try config.int("timeout_seconds", default: 30, range: 1...600))
        guard !host.isEmpty else {
            if required { throw config.error("host", "is required with mail.transport: smtp") }
            return nil
        }
        return settings
    }
}

private extension String {
    var nonEmpty: String? { isEmpty ? nil : self }
}
