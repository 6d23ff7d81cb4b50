import Foundation
import Mustache

/// Renders mails from Mustache templates, one set per locale: `<dir>/<locale>/<kind>.{subject,text,html}.mustache`.
/// The locale comes from the user's `locale` attribute or the request's Accept-Language; English is the fallback
/// and must be complete.
public struct MailComposer: Sendable {
    let library: MustacheLibrary
    let locales: Set<String>
    public var productName: String
    /// The operator's logo on its own origin and accent colour (`pages.brand`), for the HTML part.
    public var logoURL: String?
    public var accent = "#0b57d0"
    /// Test mode: every code and link composed is also recorded as data (`GET /testing/v1/codes`).
    public var capture: CapturedProofs?

    public struct TemplateError: Error, CustomStringConvertible {
        public let description: String
    }

    /// Templates from a folder (`mail.templates`).
    public static func load(directory: String, productName: String = "Latchkey") throws -> MailComposer {
        let files: [(name: String, text: String)]
        do { files = try TemplateFiles.read(directory: directory, suffix: ".mustache") } catch {
            throw TemplateError(description: "\(error)")
        }
        return try load(templates: files, source: directory, productName: productName)
    }

    /// Templates by name (`<locale>/<kind>.<part>`), e.g. the set built into the binary.
    public static func load(templates: [(name: String, text: String)], source: String,
                            productName: String = "Latchkey") throws -> MailComposer {
        var library = MustacheLibrary()
        for (name, text) in templates {
            do { try library.register(text, named: name) } catch {
                throw TemplateError(description: "cannot parse \(source)/\(name).mustache: \(error)")
            }
        }
        let locales = Set(templates.compactMap { $0.name.split(separator: "/").count == 2 ? $0.name.split(separator: "/")[0].lowercased() : nil })
        for kind in MailKind.allCases {
            for part in ["subject", "text", "html"] where library.getTemplate(named: "en/\(kind.rawValue).\(part)") == nil {
                throw TemplateError(description: "missing \(source)/en/\(kind.rawValue).\(part).mustache (English is the fallback)")
            }
        }
        return MailComposer(library: library, locales: locales, productName: productName)
    }

    /// The best locale we have templates for, from an Accept-Language list or a single tag ("de-CH", "fr;q=0.8, de").
    public func locale(for preference: String?) -> String {
        let tags = (preference ?? "").split(separator: ",").compactMap { item -> (String, Double)? in
            let parts = item.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            guard let tag = parts.first, !tag.isEmpty, tag != "*" else { return nil }
            let q = parts.dropFirst().first { $0.hasPrefix("q=") }.flatMap { Double($0.dropFirst(2)) } ?? 1
            return (tag.replacingOccurrences(of: "_", with: "-"), q)
        }.sorted { $0.1 > $1.1 }
        for (tag, _) in tags {
            if locales.contains(tag) { return tag }
            if let primary = tag.split(separator: "-").first.map(String.init), locales.contains(primary) { return primary }
        }
        return "en"
    }

    /// `newEmail` is the (masked) address an account moved to, for the notice to its previous one. Every mail
    /// carries `time`, when it was written (UTC), so a notice says when the change happened.
    public func compose(_ kind: MailKind, to: String, code: String? = nil, link: String? = nil, validMinutes: Int = 30,
                        newEmail: String? = nil, factor: String? = nil, removed: String? = nil, locale preference: String? = nil,
                        origin: MailOrigin? = nil, at now: Date = Date()) -> MailMessage {
        capture?.mailed(kind, to: to, code: code, link: link, validMinutes: validMinutes, origin: origin, at: now)
        let locale = locale(for: preference)
        var context: [String: Any] = ["product": productName, "email": to, "minutes": validMinutes,
                                      "time": now.formatted(.iso8601), "accent": accent]
        if let logoURL { context["logo"] = logoURL }
        if let code { context["code"] = code }
        if let link { context["link"] = link }
        if let newEmail { context["newEmail"] = newEmail }
        if let factor { context["factor"] = factor }
        if let removed { context["removed"] = removed }
        func render(_ part: String) -> String {
            library.render(context, withTemplate: "\(locale)/\(kind.rawValue).\(part)")
                ?? library.render(context, withTemplate: "en/\(kind.rawValue).\(part)") ?? ""
        }
        let subject = render("subject").trimmingCharacters(in: .whitespacesAndNewlines)
            .replacingOccurrences(of: "\r", with: " ").replacingOccurrences(of: "\n", with: " ")
        return MailMessage(to: to, subject: subject, text: render("text"), html: render("html"), kind: kind, createdAt: now)
    }
}
