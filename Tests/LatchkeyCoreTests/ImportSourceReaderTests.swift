import Foundation
import Testing
@testable import LatchkeyCore

/// The readers' value parsing, where the sources differ: PostgreSQL's and ISO 8601's times, Firebase's two forms of
/// hash parameters, Keycloak credentials out of bounds, Auth0's address matching.
@Suite struct ImportSourceReaderTests {
    @Test func timesInEachSourcesForm() throws {
        let utc = try #require(SourceValues.timestamp(.string("2024-01-15 10:20:30+00")))
        #expect(utc.timeIntervalSince1970 == 1_705_314_030)
        #expect(SourceValues.timestamp(.string("2024-01-15T10:20:30.5Z"))?.timeIntervalSince1970 == 1_705_314_030.5)
        #expect(SourceValues.timestamp(.string("2024-01-15 12:20:30.123456+02:00"))?.timeIntervalSince1970.rounded() == 1_705_314_030)
        #expect(SourceValues.timestamp(.string("2024-01-15 05:20:30-0500"))?.timeIntervalSince1970 == 1_705_314_030)
        for bad in ["2024-13-15 10:20:30+00", "2024-01-15", "2024-01-15 10:20:30+0", "yesterday", "2024-01-15 10:20:30 junk"] {
            #expect(SourceValues.timestamp(.string(bad)) == nil, "\(bad)")
        }
        #expect(SourceValues.epoch(.string("1600000000123"), milliseconds: true)?.timeIntervalSince1970 == 1_600_000_000.123)
        #expect(SourceValues.epoch(.int(-5), milliseconds: false) == nil)
    }

    @Test func firebaseParametersInBothForms() throws {
        let json = #"{"algorithm": "SCRYPT", "base64_signer_key": "c2lnbmVy", "base64_salt_separator": "Bw==", "rounds": 8, "mem_cost": 14}"#
        let console = "hash_config {\n  algorithm: SCRYPT,\n  base64_signer_key: c2lnbmVy,\n  base64_salt_separator: Bw==,\n  rounds: 8,\n  mem_cost: 14,\n}\n"
        let fromJSON = try FirebaseHashConfig.parse(json).get(), fromConsole = try FirebaseHashConfig.parse(console).get()
        #expect(fromJSON == fromConsole && fromJSON.memCost == 14 && fromJSON.rounds == 8)
        for (text, reason) in [(#"{"algorithm": "HMAC_SHA256"}"#, "algorithm"), (json.replacingOccurrences(of: "14", with: "15"), "mem_cost"),
                               (json.replacingOccurrences(of: "c2lnbmVy", with: "not base64!"), "signer")] {
            guard case .failure(let problem) = FirebaseHashConfig.parse(text) else { Issue.record("accepted \(text)"); continue }
            #expect(problem.reason.contains(reason))
        }
    }

    @Test func keycloakCredentialsOverTheBoundsComeWithoutAPassword() throws {
        func credential(_ algorithm: String, iterations: Int, memory: String = "7168") -> [String: JSONValue] {
            ["type": "password", "secretData": .string(#"{"value":"\#(String(repeating: "A", count: 43))=","salt":"c2FsdHNhbHRzYWx0c2FsdA=="}"#),
             "credentialData": .string(#"{"hashIterations":\#(iterations),"algorithm":"\#(algorithm)","additionalParameters":{"memory":["\#(memory)"],"parallelism":["1"],"type":["id"],"version":["1.3"]}}"#)]
        }
        #expect(try KeycloakExportUser.hash(credential("pbkdf2-sha256", iterations: 27_500)).get().hasPrefix("$pbkdf2-sha256$i=27500$"))
        #expect(try KeycloakExportUser.hash(credential("argon2", iterations: 5)).get().hasPrefix("$argon2id$v=19$m=7168,t=5,p=1$"))
        #expect(throws: ForeignPasswordHash.Refusal.self) { try KeycloakExportUser.hash(credential("pbkdf2-sha512", iterations: 5_000_000)).get() }
        #expect(throws: ForeignPasswordHash.Refusal.self) { try KeycloakExportUser.hash(credential("argon2", iterations: 5, memory: "1048576")).get() }
        #expect(throws: ForeignPasswordHash.Refusal.self) { try KeycloakExportUser.hash(credential("md5", iterations: 1)).get() }
        let user = try KeycloakExportUser.user(["id": "k1", "email": "k@example.com", "credentials": .array([.object(credential("md5", iterations: 1))])],
                                               line: 1).get()
        #expect(user.passwordHash == nil && user.unusableHash?.scheme == "md5")
    }

    @Test func auth0PasswordsMatchDatabaseUsersOnly() throws {
        var passwords = Auth0PasswordExport()
        let added = passwords.add(["_id": .object(["$oid": "abc"]), "email": "A@example.com", "passwordHash": "$2b$10$x"])
        let refused = passwords.add(["_id": .object(["$oid": "nohash"])])
        #expect(added && !refused && passwords.count == 1)
        let database = try Auth0ExportUser.user(["user_id": "auth0|other", "email": "a@example.com",
                                                 "identities": .array([.object(["provider": "auth0", "user_id": "other"])])], line: 1, passwords: passwords).get()
        #expect(database.passwordHash == "$2b$10$x")
        let social = try Auth0ExportUser.user(["user_id": "google-oauth2|1", "email": "a@example.com",
                                               "identities": .array([.object(["provider": "google-oauth2", "user_id": "1"])])], line: 2, passwords: passwords).get()
        #expect(social.passwordHash == nil && social.identities == [ImportedIdentity(provider: "google", subject: "1")])
    }
}
