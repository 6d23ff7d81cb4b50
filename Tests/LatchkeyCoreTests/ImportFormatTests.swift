import Foundation
import Testing
@testable import LatchkeyCore

/// Reading export documents: times keep their millisecond through any number of round trips, and a mongo `_User`
/// document's fields come out in the shapes Parse clients read.
@Suite struct ImportFormatTests {
    @Test func timesRoundToTheMillisecondAndSurviveRoundTrips() throws {
        for text in ["2021-03-04T05:06:07.089Z", "2021-03-04T05:06:07.999Z", "2021-03-04T05:06:07.000Z", "1969-12-31T23:59:59.999Z",
                     "1983-02-01T00:00:00.001Z"] {
            var date = try #require(ParseDate.parse(text))
            for _ in 0..<3 {
                #expect(ParseDate.string(date) == text)
                date = try #require(ParseDate.parse(ParseDate.string(date)))
            }
        }
        // A value a hair under the millisecond, as a Double read back from a store may be.
        #expect(ParseDate.string(Date(timeIntervalSince1970: 1_614_834_367.088_999_9)) == "2021-03-04T05:06:07.089Z")
        #expect(ParseDate.parse("2021-03-04T05:06:07Z") != nil)
        #expect(ParseExportDocument.date(.object(["$date": .object(["$numberLong": .string("1614834367089")])]))
                == ParseDate.parse("2021-03-04T05:06:07.089Z"))
    }

    @Test func aMongoUserDocumentBecomesAnImportedUser() {
        let document: [String: JSONValue] = [
            "_id": .string("abcDEF1234"), "username": .string("ann"), "email": .string("Ann@Example.com"), "emailVerified": .bool(true),
            "_hashed_password": .string("$2b$10$x"), "_created_at": .object(["$date": .string("2020-01-02T03:04:05.006Z")]),
            "_p_team": .string("Team$t1"), "score": .object(["$numberLong": .string("9007199254740993")]), "tags": .array([.string("a")]),
            "_rperm": .array([.string("*")]), "_auth_data_github": .object(["id": .string("1")]), "ACL": .object([:]),
        ]
        let user = ParseExportDocument.user(document, line: 7)
        #expect(user.objectId == "abcDEF1234" && user.username == "ann" && user.email == "Ann@Example.com" && user.emailVerified)
        #expect(user.passwordHash == "$2b$10$x" && user.identities == [ImportedIdentity(provider: "github", subject: "1")] && user.line == 7)
        #expect(user.createdAt == ParseDate.parse("2020-01-02T03:04:05.006Z"))
        let expected: [String: JSONValue] = [
            "team": .object(["__type": .string("Pointer"), "className": .string("Team"), "objectId": .string("t1")]),
            "score": .int(9_007_199_254_740_993), "tags": .array([.string("a")]),
        ]
        #expect(user.attributes == expected)
    }
}
