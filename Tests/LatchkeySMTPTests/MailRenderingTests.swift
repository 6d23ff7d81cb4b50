import Foundation
import LatchkeyTestSupport
import Testing
@testable import LatchkeyCore
@testable import LatchkeySMTP

@Suite struct MIMERenderingTests {
    let message = MailMessage(to: "ada@example.com", subject: "Ihr Code für Latchkey – bitte bestätigen Sie Ihre Adresse jetzt sofort",
                              text: ".starts with a dot\nline two", html: "<p>héllo</p>", kind: .signUpCode, createdAt: Date())

    @Test func asciiSubjectsStayReadable() {
        #expect(MIMEMessage.encodedWord("Your Latchkey sign-up code") == "Your Latchkey sign-up code")
    }

    @Test func nonASCIISubjectsBecomeShortEncodedWords() throws {
        let encoded = MIMEMessage.encodedWord(message.subject)
        let words = encoded.components(separatedBy: "\r\n ")
        #expect(words.count > 1)
        var decoded = Data()
        for word in words {
            #expect(word.count <= 75 && word.hasPrefix("=?utf-8?B?") && word.hasSuffix("?="))
            decoded += try #require(Data(base64Encoded: String(word.dropFirst(10).dropLast(2))))
        }
        #expect(String(decoding: decoded, as: UTF8.self) == message.subject)
    }

    @Test func renderedMessageHasHeadersPartsAndShortLines() {
        let mime = MIMEMessage(from: MailAddress(address: "no-reply@example.com", name: "Wächter"), message: message)
        let rendered = mime.render()
        let lines = rendered.components(separatedBy: "\r\n")
        #expect(lines.allSatisfy { $0.count <= 78 }, "\(lines.filter { $0.count > 78 })")
        #expect(!rendered.replacingOccurrences(of: "\r\n", with: "").contains("\n"))
        for header in ["From: =?utf-8?B?", "To: <ada@example.com>", "Date: ", "Message-ID: <", "MIME-Version: 1.0",
                       "Content-Type: multipart/alternative"] {
            #expect(lines.contains { $0.hasPrefix(header) }, "missing \(header)")
        }
        #expect(lines.filter { $0 == "Content-Transfer-Encoding: base64" }.count == 2)
    }

    @Test func dotStuffingAndTerminator() {
        let stuffed = MIMEMessage.dotStuffed("a\r\n.b\r\n..c\r\n")
        #expect(stuffed == "a\r\n..b\r\n...c\r\n.\r\n")
    }
}

@Suite struct MailTemplateTests {
    @Test func localeComesFromAcceptLanguage() async throws {
        let composer = try MailComposer.load(directory: EngineHarness.repositoryRoot + "/config/templates")
        #expect(composer.locale(for: "de-CH, de;q=0.9, en;q=0.5") == "de")
        #expect(composer.locale(for: "fr-FR, en;q=0.1") == "en")
        #expect(composer.locale(for: "fr;q=0.9, DE;q=0.8") == "de")
        #expect(composer.locale(for: nil) == "en")
        let mail = composer.compose(.resetCode, to: "a@example.com", code: "12345678", locale: "de")
        #expect(mail.subject.contains("Zurücksetzen") && mail.text.contains("12345678") && mail.html.contains("12345678"))
        #expect(!mail.subject.contains("12345678"), "codes never go in subjects: subjects are stored in clear")
    }

    @Test func incompleteEnglishSetIsRefused() async throws {
        let dir = NSTemporaryDirectory() + "templates-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: dir + "/en", withIntermediateDirectories: true)
        try "x".write(toFile: dir + "/en/sign_up_code.text.mustache", atomically: true, encoding: .utf8)
        #expect(throws: MailComposer.TemplateError.self) { _ = try MailComposer.load(directory: dir) }
    }
}
