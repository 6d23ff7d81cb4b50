import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

/// The Parse dialect in-process, like the other dialects: sign-up, login, the session's user, changes with Parse's
/// field operations, and errors in Parse's `{code, error}` shape with its statuses.
@Suite struct ParseRouterTests {
    @Test func signUpLogInReadAndChangeTheUser() async throws {
        let app = try await RouterHarness.application()
        try await app.test(.router) { client in
            let (created, signUp) = try await client.parse("/users", #"{"username":"ada","password":"correct horse 9","score":1}"#)
            #expect(created == .created && (signUp["sessionToken"] as? String)?.hasPrefix("r:") == true)
            let id = try #require(signUp["objectId"] as? String)
            let (loggedIn, login) = try await client.parse("/login", #"{"username":"ADA","password":"correct horse 9"}"#)
            #expect(loggedIn == .ok && login["objectId"] as? String == id)
            let session = try #require(login["sessionToken"] as? String)
            let (changed, _) = try await client.parse("/users/\(id)", method: .put, #"{"score":{"__op":"Increment","amount":2},"nick":"a"}"#,
                                                      session: session)
            #expect(changed == .ok)
            let (read, me) = try await client.parse("/users/me", method: .get, session: session)
            #expect(read == .ok && me["score"] as? Int == 3 && me["nick"] as? String == "a" && me["username"] as? String == "ada")
            let (removed, _) = try await client.parse("/users/\(id)", method: .put, #"{"nick":{"__op":"Delete"}}"#, session: session)
            #expect(removed == .ok)
            let (_, after) = try await client.parse("/users/me", method: .get, session: session)
            #expect(after["nick"] == nil)
        }
    }

    @Test func errorsComeInParsesShape() async throws {
        let app = try await RouterHarness.application()
        try await app.test(.router) { client in
            let (wrong, wrongBody) = try await client.parse("/login", #"{"username":"nobody","password":"correct horse 9"}"#)
            #expect(wrong == .notFound && wrongBody["code"] as? Int == 101)
            let (badEmail, badEmailBody) = try await client.parse("/users", #"{"username":"bob","password":"correct horse 9","email":"no-at"}"#)
            #expect(badEmail == .badRequest && badEmailBody["code"] as? Int == 125)
            #expect((badEmailBody["error"] as? String)?.contains("needs one @") == true)
            let (op, opBody) = try await client.parse("/users", #"{"username":"carol","password":"correct horse 9"}"#)
            #expect(op == .created)
            let session = try #require(opBody["sessionToken"] as? String), id = try #require(opBody["objectId"] as? String)
            let (unsupported, unsupportedBody) = try await client.parse("/users/\(id)", method: .put, #"{"tags":{"__op":"AddUnique","objects":["x"]}}"#,
                                                                        session: session)
            #expect(unsupported == .badRequest && unsupportedBody["code"] as? Int == 111)
            let (noSession, noSessionBody) = try await client.parse("/users/me", method: .get, session: "r:0000")
            #expect(noSession == .badRequest && noSessionBody["code"] as? Int == 209)
            let (list, listBody) = try await client.parse("/users", method: .get)
            #expect(list == .badRequest && listBody["code"] as? Int == 119)
            // In-process there is no peer address, so the master key is refused as from an address not allowed.
            let (master, masterBody) = try await client.parse("/users?count=1", method: .get, master: true)
            #expect(master == .forbidden && masterBody["error"] as? String == "unauthorized")
        }
    }
}
