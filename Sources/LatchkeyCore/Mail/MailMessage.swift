import Foundation

public enum MailKind: String, Sendable, Codable {
    case signUpCode = "sign_up_code", signInCode = "sign_in_code", resetCode = "reset_code", passwordChanged = "password_changed"
}

/// A rendered mail: what to send, not how.
public struct MailMessage: Sendable, Codable, Equatable {
    public var to: String
    public var subject: String
    public var text: String
    public var html: String
    public var kind: MailKind
    public var createdAt: Date
}

/// Renders the mails the flows send. (Per-locale templates from files come with the SMTP work.)
public struct MailComposer: Sendable {
    public let productName: String

    public func compose(_ kind: MailKind, to: String, code: String? = nil, validMinutes: Int = 30,
                        at now: Date = Date()) -> MailMessage {
        let subject: String, lead: String
        switch kind {
        case .signUpCode: subject = "Your \(productName) sign-up code"; lead = "Use this code to confirm your email address:"
        case .signInCode: subject = "Your \(productName) sign-in code"; lead = "Use this code to sign in:"
        case .resetCode: subject = "Your \(productName) password reset code"; lead = "Use this code to reset your password:"
        case .passwordChanged: subject = "Your \(productName) password was changed"
            lead = "The password of your account was just changed. If this was not you, reset it now."
        }
        var text = lead + "\n"
        var html = "<p>\(Self.escape(lead))</p>"
        if let code {
            text += "\n    \(code)\n\nIt expires in \(validMinutes) minutes. If you did not ask for it, ignore this mail.\n"
            html += "<p style=\"font-size:24px;letter-spacing:4px\"><b>\(code)</b></p>"
                + "<p>It expires in \(validMinutes) minutes. If you did not ask for it, ignore this mail.</p>"
        }
        return MailMessage(to: to, subject: subject, text: text, html: html, kind: kind, createdAt: now)
    }

    static func escape(_ s: String) -> String {
        s.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
