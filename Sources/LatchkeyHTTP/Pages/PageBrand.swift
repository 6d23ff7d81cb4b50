import Foundation

/// The operator's product on the hosted pages (a header with the logo and name, the accent colour) and in mails.
public struct PageBrand: Sendable {
    public struct Logo: Sendable {
        public let bytes: Data
        public let contentType: String

        public init(bytes: Data, contentType: String) {
            self.bytes = bytes
            self.contentType = contentType
        }

        /// The image's type from its first bytes, not its file name: what the browser is told is what it gets.
        public static func contentType(of bytes: Data) -> String? {
            let head = [UInt8](bytes.prefix(16))
            if head.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return "image/png" }
            if head.starts(with: [0xFF, 0xD8, 0xFF]) { return "image/jpeg" }
            if head.count >= 12, head.starts(with: Array("RIFF".utf8)), Array(head[8..<12]) == Array("WEBP".utf8) { return "image/webp" }
            let text = String(decoding: bytes.prefix(1024), as: UTF8.self).lowercased()
            if text.contains("<svg") { return "image/svg+xml" }
            return nil
        }
    }

    public let name: String?
    public let logo: Logo?
    public let accent: String?

    public init(name: String? = nil, logo: Logo? = nil, accent: String? = nil) {
        self.name = name
        self.logo = logo
        self.accent = accent
    }

    /// Where the pages fetch the logo (same origin: the pages' policy allows images from `'self'` only).
    public static let logoPath = "/ui/brand/logo"

    /// What the page templates read as `brand`: absent when nothing is set, so the pages look as they always did.
    var templateContext: [String: Any]? {
        guard name != nil || logo != nil else { return nil }
        var context: [String: Any] = [:]
        if let name { context["name"] = name }
        if logo != nil { context["logo"] = Self.logoPath }
        return context
    }

    /// The style sheet with the accent in place of the built-in blue, which the sheet names once as `--accent`.
    public func styled(_ css: String) -> String {
        guard let accent else { return css }
        return css + "\n/* pages.brand.accent */\n:root { --accent: \(accent); }\n"
    }
}
