import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

/// Each dialect through the application `serve` builds, in-process: its answers, its error shapes, and one account
/// shared between dialects.
@Suite struct DialectRouterTests {
    @Test func nativeErrorsComeInTheNativeShape() async throws {
        let app = try await RouterHarness.application()
        try await app.test(.router) { client in
            let (unknown, unknownBody) = try await client.form("/oauth2/v2.0/initiate", ["client_id": "nope", "username": "a@example.com",
                                                                                           "challenge_type": "oob redirect"])
            #expect(unknown == .badRequest && unknownBody["error"] as? String == "unauthorized_client")
            let (noGrant, noGrantBody) = try await client.form("/oauth2/v2.0/token", [:])
            #expect(noGrant == .badRequest && noGrantBody["error_description"] as? String == "grant_type parameter is empty or not valid")
            let (noRedirect, noRedirectBody) = try await client.form("/signup/v1.0/start", ["username": "a@example.com", "challenge_type": "oob"])
            #expect(noRedirect == .badRequest && noRedirectBody["error"] as? String == "unsupported_challenge_type")
            let (badAttributes, badAttributesBody) = try await client.form("/signup/v1.0/start", [
                "username": "a@example.com", "challenge_type": "oob redirect", "attributes": "{not json"])
            #expect(badAttributes == .badRequest && badAttributesBody["error_description"] as? String == "attributes parameter is empty or not valid")
            let (userInfo, userInfoBody, _) = try await client.json("/oidc/userinfo", method: .get, bearer: "not-a-token")
            #expect(userInfo == .unauthorized && userInfoBody["error"] as? String == "invalid_token")
        }
    }

    @Test func appServicesRegistersLogsInAndAnswersInItsShape() async throws {
        let app = try await RouterHarness.application(minPasswordLength: 10)
        try await app.test(.router) { client in
            let base = "/api/client/v2.0/app/auto-app/auth/providers/local-userpass"
            // The length message names the configured bound, not a restated default.
            let (short, shortBody, _) = try await client.json("\(base)/register", #"{"email":"ada@example.com","password":"short-pw"}"#)
            #expect(short == .badRequest && shortBody["error"] as? String == "password must be between 10 and 256 characters")
            let (created, _, _) = try await client.json("\(base)/register", #"{"email":"Ada@Example.com","password":"a-strong-passphrase"}"#)
            #expect(created == .created)
            let (taken, takenBody, _) = try await client.json("\(base)/register", #"{"email":"ada@example.com","password":"a-strong-passphrase"}"#)
            #expect(taken == .conflict && takenBody["error_code"] as? String == "AccountNameInUse")
            let (unknownApp, unknownBody, _) = try await client.json("/api/client/v2.0/app/nope/auth/providers/local-userpass/login", "{}")
            #expect(unknownApp == .notFound && unknownBody["error"] as? String == "cannot find app using Client App ID 'nope'")
            let (badBody, badBodyAnswer, headers) = try await client.json("\(base)/login", "[1]")
            #expect(badBody == .badRequest && badBodyAnswer["error_code"] as? String == "BadRequest" && headers[.contentType] == "application/json")

            let (login, session, _) = try await client.json("\(base)/login", #"{"username":"ada@example.com","password":"a-strong-passphrase"}"#)
            #expect(login == .ok)
            let access = try #require(session["access_token"] as? String), refresh = try #require(session["refresh_token"] as? String)
            let (profile, profileBody, _) = try await client.json("/api/client/v2.0/auth/profile", method: .get, bearer: access)
            #expect(profile == .ok && (profileBody["data"] as? [String: Any])?["email"] as? String == "ada@example.com")
            let (renewed, renewedBody, _) = try await client.json("/api/client/v2.0/auth/session", bearer: refresh)
            #expect(renewed == .ok && renewedBody["access_token"] is String)
            // An App Services session token is no native refresh token, and the reverse.
            let (crossed, crossedBody) = try await client.form("/oauth2/v2.0/token", ["grant_type": "refresh_token", "refresh_token": refresh])
            #expect(crossed == .badRequest && crossedBody["error"] as? String == "invalid_grant")
            let (ended, _, _) = try await client.json("/api/client/v2.0/auth/session", method: .delete, bearer: refresh)
            #expect(ended == .noContent)
            let (afterLogout, afterBody, _) = try await client.json("/api/client/v2.0/auth/session", bearer: refresh)
            #expect(afterLogout == .unauthorized && afterBody["error_code"] as? String == "InvalidSession")
        }
    }

    @Test func anAccountMadeInOneDialectSignsInThroughTheOther() async throws {
        let app = try await RouterHarness.application()
        try await app.test(.router) { client in
            let base = "/api/client/v2.0/app/auto-app/auth/providers/local-userpass"
            _ = try await client.json("\(base)/register", #"{"email":"both@example.com","password":"a-strong-passphrase"}"#)
            let (_, started) = try await client.form("/oauth2/v2.0/initiate", ["username": "both@example.com",
                                                                                "challenge_type": "oob password redirect"])
            let (_, challenged) = try await client.form("/oauth2/v2.0/challenge", [
                "continuation_token": try #require(started["continuation_token"] as? String), "challenge_type": "oob password redirect"])
            #expect(challenged["challenge_type"] as? String == "password")
            let (status, tokens) = try await client.form("/oauth2/v2.0/token", [
                "grant_type": "password", "username": "both@example.com", "password": "a-strong-passphrase",
                "continuation_token": try #require(challenged["continuation_token"] as? String), "scope": "openid offline_access"])
            #expect(status == .ok && tokens["token_type"] as? String == "Bearer" && tokens["refresh_token"] is String)
            let (userInfo, info, _) = try await client.json("/oidc/userinfo", method: .get, bearer: try #require(tokens["access_token"] as? String))
            #expect(userInfo == .ok && info["email"] as? String == "both@example.com")
        }
    }

    @Test func hostedPagesAnswerInHTML() async throws {
        let app = try await RouterHarness.application()
        try await app.test(.router) { client in
            try await client.execute(uri: "/reset-password", method: .get) { response in
                #expect(response.status == .badRequest)
                #expect(response.headers[.contentType]?.hasPrefix("text/html") == true)
            }
            try await client.execute(uri: "/reset-password", method: .post, headers: [.contentType: "application/x-www-form-urlencoded"],
                                     body: ByteBuffer(string: "token=\(String(repeating: "a", count: 64))&tokenId=\(String(repeating: "b", count: 24))&password=a-strong-passphrase")) { response in
                #expect(response.status == .badRequest)
                #expect(String(buffer: response.body).contains("expired or was already used"))
            }
        }
    }
}
