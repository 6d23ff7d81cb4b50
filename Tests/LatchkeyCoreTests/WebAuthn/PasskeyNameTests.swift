import Testing
@testable import LatchkeyCore

/// A passkey the person did not name is named after its provider when its AAGUID is a known one, else after the
/// browser and system it was made on, whatever order the user agent lists them in (every Chrome also says Safari,
/// Edge says Chrome, an iPhone "like Mac OS X").
@Suite struct PasskeyNameTests {
    @Test(arguments: [
        ("Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/156.0.0.0 Safari/537.36", "Chrome on Linux"),
        ("Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0 Safari/537.36 Edg/130.0", "Edge on Windows"),
        ("Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.0 Mobile/15E148 Safari/604.1",
         "Safari on iPhone"),
        ("Mozilla/5.0 (Linux; Android 15; Pixel 9) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0 Mobile Safari/537.36", "Chrome on Android"),
        ("Mozilla/5.0 (Macintosh; Intel Mac OS X 14.6; rv:131.0) Gecko/20100101 Firefox/131.0", "Firefox on macOS"),
        ("curl/8.0", "Passkey"),
    ])
    func namedAfterTheBrowserAndSystem(_ agent: String, _ name: String) {
        #expect(Passkeys.defaultName(userAgent: agent) == name)
    }

    @Test func aKnownAAGUIDNamesItsProviderAndAnUnknownOneTheBrowser() {
        let chrome = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36"
        let googlePasswordManager: [UInt8] = [0xea, 0x9b, 0x8d, 0x66, 0x4d, 0x01, 0x1d, 0x21, 0x3c, 0xe4, 0xb6, 0xb4, 0x8c, 0xb5, 0x75, 0xd4]
        #expect(Passkeys.defaultName(aaguid: googlePasswordManager, userAgent: chrome) == "Google Password Manager")
        #expect(Passkeys.defaultName(aaguid: [UInt8](repeating: 0, count: 16), userAgent: chrome) == "Chrome on Linux")
        #expect(Passkeys.defaultName(aaguid: [UInt8](repeating: 7, count: 16), userAgent: nil) == "Passkey")
    }
}
