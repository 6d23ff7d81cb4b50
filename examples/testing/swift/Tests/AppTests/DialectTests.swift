import Foundation
import XCTest

/// One test per dialect: sign up, read the code or link as data, move the clock past its expiry and see it refused
/// in the dialect's own words, sign in with the stand-in Apple; every test starts from a wiped server.
final class DialectTests: XCTestCase {
    override func setUp() async throws { try await TestServer.wipe() }

    func testNativeAuthCodeExpires() async throws {
        let config = try await TestServer.call("GET", "/testing/v1/config").json
        let client = try XCTUnwrap(config["native_client_id"] as? String), email = TestServer.newEmail(), types = "oob password redirect"
        let start = try await TestServer.call("POST", "/signup/v1.0/start", form: ["client_id": client, "username": email,
                                                                                  "password": TestServer.password, "challenge_type": types])
        let started = try XCTUnwrap(start.json["continuation_token"] as? String)
        let challenge = try await TestServer.call("POST", "/signup/v1.0/challenge", form: [
            "client_id": client, "continuation_token": started, "challenge_type": types])
        let challenged = try XCTUnwrap(challenge.json["continuation_token"] as? String)
        let sent = try await TestServer.latest(to: email, purpose: "sign_up")
        let code = try XCTUnwrap(sent["code"] as? String)
        try await TestServer.advanceClock(seconds: 7200)
        let late = try await TestServer.call("POST", "/signup/v1.0/continue", form: [
            "client_id": client, "continuation_token": challenged, "grant_type": "oob", "oob": code])
        XCTAssertEqual(late.status, 400)
        XCTAssertEqual(late.json["error"] as? String, "expired_token")
    }

    func testAppServicesConfirmationAndApple() async throws {
        let app = "/api/client/v2.0/app/test-app/auth/providers", email = TestServer.newEmail()
        let registered = try await TestServer.call("POST", app + "/local-userpass/register", json: ["email": email, "password": TestServer.password])
        XCTAssertEqual(registered.status, 201)
        let link = try await TestServer.latest(to: email, purpose: "confirmation")
        let confirmed = try await TestServer.call("POST", app + "/local-userpass/confirm", json: ["token": link["token"]!, "tokenId": link["token_id"]!])
        XCTAssertEqual(confirmed.status, 200)
        let token = try await TestServer.appleToken(sub: "swift-apple")
        let apple = try await TestServer.call("POST", app + "/oauth2-apple/login", json: ["id_token": token])
        XCTAssertEqual(apple.status, 200)
        XCTAssertNotNil(apple.json["access_token"] as? String)
    }

    func testParseVerificationLinkExpires() async throws {
        let email = TestServer.newEmail(), parse = ["X-Parse-Application-Id": "testAppId"]
        let made = try await TestServer.call("POST", "/parse/users", json: ["username": email, "email": email, "password": TestServer.password],
                                             headers: parse)
        XCTAssertEqual(made.status, 201)
        let sent = try await TestServer.latest(to: email, purpose: "confirmation")
        let link = try XCTUnwrap(sent["link"] as? String)
        try await TestServer.advanceClock(seconds: 7 * 86400)
        let late = try await TestServer.call("GET", link)
        XCTAssertTrue(late.location?.hasSuffix("/apps/invalid_verification_link.html") == true, "\(late.status) \(late.location ?? "-")")
    }
}
