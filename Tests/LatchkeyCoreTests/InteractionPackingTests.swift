import Foundation
import Testing
@testable import LatchkeyCore

@Suite struct InteractionPackingTests {
    private static let full = Interaction(
        request: AuthorizationRequest(clientId: "app", redirectUri: "https://app.example/cb?x=1", scopes: ["openid", "email"], state: "s+é",
                                      nonce: "n", codeChallenge: "c", prompt: ["login", "consent"], maxAge: 0, loginHint: "ada@example.com",
                                      uiLocales: "fr en"),
        browser: Data([1, 2, 3, 255]), expiresAt: Date(timeIntervalSinceReferenceDate: 817_000_000.123456),
        signedInSession: "bs-1", flowToken: "flow", codeTarget: "a***@example.com", decoyAddress: "x@example.com")

    private static let bare = Interaction(
        request: AuthorizationRequest(clientId: "app", redirectUri: "myapp://cb", scopes: [], state: nil, nonce: nil, codeChallenge: nil,
                                      prompt: [], maxAge: nil, loginHint: nil, uiLocales: nil),
        browser: Data(), expiresAt: Date(timeIntervalSinceReferenceDate: 1), signedInSession: nil, flowToken: nil, codeTarget: nil,
        decoyAddress: nil)

    /// A device's visit carries its user code last; a visit without one is as an earlier release sealed it.
    private static let device = Interaction(
        request: AuthorizationRequest(clientId: "tv", redirectUri: GrantType.deviceCode.rawValue, scopes: ["openid"], state: nil, nonce: nil,
                                      codeChallenge: nil, prompt: ["consent"], maxAge: nil, loginHint: nil, uiLocales: nil,
                                      deviceUserCode: "BCDFGHJK"),
        browser: Data([9]), expiresAt: Date(timeIntervalSinceReferenceDate: 2), signedInSession: nil, flowToken: nil, codeTarget: nil,
        decoyAddress: nil)

    /// A visit for a protected resource (RFC 8707) carries its URL.
    private static let resource: Interaction = {
        var visit = full
        visit.request.resource = "https://mcp.example.com/mcp"
        return visit
    }()

    @Test func everyFieldComesBackExactly() {
        for interaction in [Self.full, Self.bare, Self.device, Self.resource] {
            #expect(Interaction(packed: interaction.packed) == interaction)
        }
    }

    @Test func aVisitSealedAsJSONStillOpens() throws {
        let json = try JSONEncoder().encode(Self.full)
        #expect(Interaction(packed: [UInt8](json)) == Self.full)
    }

    /// Version 1 ended with the device's user code alone, absent for any other visit; an open visit sealed by the
    /// release before survives the upgrade.
    @Test func aVisitSealedAsVersionOneStillOpens() {
        var bare = Self.bare.packed
        #expect(bare.suffix(2) == [0, 0])
        bare.removeLast(2)
        bare[0] = 1
        #expect(Interaction(packed: bare) == Self.bare)
        var device = Self.device.packed
        #expect(device.last == 0)
        device.removeLast()
        device.remove(at: device.count - 4 - 8 - 1)
        device[0] = 1
        #expect(Interaction(packed: device) == Self.device)
    }

    @Test func malformedBytesAreNoneNotATrap() {
        let packed = Self.full.packed
        for cut in [0, 1, 5, packed.count / 2, packed.count - 1] {
            #expect(Interaction(packed: Array(packed.prefix(cut))) == nil)
        }
        #expect(Interaction(packed: packed + [0]) == nil)
        var otherVersion = packed
        otherVersion[0] = 3
        #expect(Interaction(packed: otherVersion) == nil)
        var hugeCount = packed
        hugeCount.replaceSubrange(1..<5, with: [0xFF, 0xFF, 0xFF, 0xFF])
        #expect(Interaction(packed: hugeCount) == nil)
        #expect(Interaction(packed: Array("{\"request\":1}".utf8)) == nil)
    }
}
