import Foundation
import LatchkeyHTTP

/// `pages.brand.*`: the operator's product on the hosted pages and in mails: its name, a logo and an accent colour.
struct PageBrandSettings: ConfigSection {
    static let section = "pages.brand"
    static let keys = ["name", "logo_file", "accent"]
    /// A logo is an image of a header's height; anything larger is probably the wrong file.
    static let largestLogo = 256 * 1024

    var brand: PageBrand

    init(_ config: SectionReader) throws {
        let name = try config.string("name", default: "").trimmingCharacters(in: .whitespacesAndNewlines)
        guard name.count <= 60, !name.contains(where: { $0.isNewline }) else {
            throw config.error("name", "must be one line of at most 60 characters")
        }
        let accent = try config.string("accent", default: "")
        // A colour only, never free CSS: it is written into the served style sheet.
        guard accent.isEmpty || accent.wholeMatch(of: /#([0-9a-fA-F]{3}|[0-9a-fA-F]{6})/) != nil else {
            throw config.error("accent", "must be a colour as #rgb or #rrggbb (it was \(accent))")
        }
        var logo: PageBrand.Logo?
        if let path = try config.path("logo_file", default: nil) {
            guard let bytes = FileManager.default.contents(atPath: path) else {
                throw config.error("logo_file", "cannot read \(path)")
            }
            guard bytes.count <= Self.largestLogo else {
                throw config.error("logo_file", "\(path) is \(bytes.count) bytes; a logo may have at most \(Self.largestLogo)")
            }
            guard let type = PageBrand.Logo.contentType(of: bytes) else {
                throw config.error("logo_file", "\(path) is not a PNG, JPEG, WebP or SVG image")
            }
            logo = PageBrand.Logo(bytes: bytes, contentType: type)
        }
        brand = PageBrand(name: name.isEmpty ? nil : name, logo: logo, accent: accent.isEmpty ? nil : accent)
    }
}
