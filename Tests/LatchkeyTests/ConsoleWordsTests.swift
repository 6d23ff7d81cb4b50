import Foundation
@testable import Latchkey
import LatchkeyCore
import Testing

/// The console's built-in words and templates agree: every language has every key, and every `{{t.key}}` a
/// template uses is a key.
@Suite struct ConsoleWordsTests {
    @Test func everyLanguageHasEveryKeyTheTemplatesUse() throws {
        let options = try consoleOptions(ConsoleSessionPolicy(idleSeconds: 60, absoluteSeconds: 600))
        guard let english = options.strings["en"] else { Issue.record("no en.strings"); return }
        #expect(Set(options.strings.keys) == ["en", "de"])
        for (language, table) in options.strings { #expect(Set(table.keys) == Set(english.keys), "\(language).strings") }
        let used = EmbeddedDefaults.consolePages.flatMap { page in
            page.text.matches(of: /\{\{[#^\/]?t\.([a-z_0-9]+)\}\}/).map { String($0.output.1) }
        }
        #expect(!used.isEmpty)
        for key in used { #expect(english[key] != nil, "t.\(key) is used by a template and missing from en.strings") }
    }
}
