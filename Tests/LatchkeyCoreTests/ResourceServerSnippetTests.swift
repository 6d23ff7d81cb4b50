import Foundation
import JWTKit
import LatchkeyTestSupport
import Testing
@testable import LatchkeyCore

/// docs/openid.md's Swift resource server, compiled: `AccessToken` and `verified` below are the docs' block line for
/// line (the first test holds them in step), run against tokens this engine signs.
@Suite struct ResourceServerSnippetTests {
    struct AccessToken: JWTPayload {
        var iss: IssuerClaim
        var sub: SubjectClaim
        var aud: AudienceClaim
        var exp: ExpirationClaim
        var scp: String

        func verify(using algorithm: some JWTAlgorithm) async throws {
            try exp.verifyNotExpired()
            try aud.verifyIntendedAudience(includes: "https://files.example.com/api")
            guard iss.value == "https://id.example.com" else {
                throw JWTError.claimVerificationFailure(failedClaim: iss, reason: "another issuer")
            }
        }
    }

    func verified(_ bearerToken: String, jwks: String) async throws -> AccessToken {
        // jwks: the document at jwks_uri, fetched and kept (fetch again when a token names an unknown kid).
        let keys = try await JWTKeyCollection().add(jwksJSON: jwks)
        let claims = try await keys.verify(bearerToken, as: AccessToken.self)
        guard claims.scp.split(separator: " ").contains("files.read") else {
            throw JWTError.claimVerificationFailure(failedClaim: nil, reason: "the token lacks files.read")
        }
        return claims
    }

    @Test func theDocsPrintThisCode() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let docs = try String(contentsOf: root.appendingPathComponent("docs/openid.md"), encoding: .utf8)
        let section = try #require(docs.components(separatedBy: "## Tokens for your APIs").dropFirst().first)
        let block = try #require(section.components(separatedBy: "```swift\n").dropFirst().first?.components(separatedBy: "```").first)
        let source = try String(contentsOf: URL(fileURLWithPath: #filePath), encoding: .utf8)
        let lines = Set(source.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) })
        let missing = block.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty && !lines.contains($0) }
        #expect(missing.isEmpty, "docs/openid.md's Swift lines not in this test: \(missing)")
    }

    @Test func itAcceptsTokensForItsResourceAndRefusesTheRest() async throws {
        let h = try await EngineHarness.make { settings in
            settings.publicURL = "https://id.example.com"
            settings.resources = [ProtectedResource(uri: "https://files.example.com/api", scopes: ["files.read"]),
                                  ProtectedResource(uri: "https://mcp.example.com/mcp", scopes: ["tools"])]
        }
        // The verifier reads the wall clock: the engine's starts now.
        h.time.advance(seconds: Date().timeIntervalSince1970 - h.time.now().timeIntervalSince1970)
        _ = try await h.signUp("rs@example.com")
        let user = try #require(try await h.engine.reader.users.find(email: "rs@example.com"))
        let client = try #require(h.engine.client(id: EngineHarness.client))
        let keys = h.engine.keyRing.snapshot.keys.map { JSONValue.object($0.publicJWK.mapValues(JSONValue.string)) }
        let jwks = String(decoding: try JSONEncoder().encode(JSONValue.object(["keys": .array(keys)])), as: UTF8.self)
        func token(_ resource: String?, scopes: [String]) throws -> String {
            try h.engine.tokens.signTokens(for: user, client: client, scopes: scopes, refreshToken: nil,
                                           resource: resource.flatMap(h.engine.resource(uri:))).accessToken
        }

        let claims = try await verified(try token("https://files.example.com/api", scopes: ["files.read"]), jwks: jwks)
        #expect(claims.sub.value == user.id)
        await #expect(throws: JWTError.self) { try await verified(try token("https://mcp.example.com/mcp", scopes: ["tools"]), jwks: jwks) }
        await #expect(throws: JWTError.self) { try await verified(try token(nil, scopes: ["openid"]), jwks: jwks) }
        await #expect(throws: JWTError.self) { try await verified(try token("https://files.example.com/api", scopes: ["openid"]), jwks: jwks) }
    }
}
