import Foundation
@testable import Latchkey
@testable import LatchkeyCore
import Testing

/// The identity keys issue P spells out, read as written there, and their mistakes named by key.
@Suite struct IdentityConfigTests {
    @Test func theDocumentedIdentityConfigurationLoads() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-identity-config-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try "a-partner-secret-of-at-least-32-bytes-long\n".write(to: folder.appendingPathComponent("jwt"), atomically: true, encoding: .utf8)
        let yaml = """
            functions: { my_login_function: { kind: command, command: [/bin/true] } }
            identities:
              anonymous: {idle_days: 90}
              providers:
                apple:  {audiences: [com.example.app]}
                google: {audiences: [123-abc.apps.googleusercontent.com]}
                corp:   {issuer: https://id.example.com, jwks_url: https://id.example.com/keys, audiences: [app]}
              custom_jwt:
                partner: {audiences: [app], hs256_secret_file: jwt, claims: {name: name, email: email}}
            app_services:
              apps: [{id: my-app, providers: [local-userpass, anon-user, api-key, oauth2-apple, oauth2-google,
                      custom-token, custom-function], custom_token: partner, custom_function: my_login_function}]
            parse:
              apps: [{id: myAppId, auth: [anonymous, apple, google, corp]}]
            """
        let config = try LatchkeyConfig(ConfigSource(yaml: yaml, fileDirectory: folder.path, environment: [:], sections: LatchkeyConfig.sections))
        let identities = config.engine.identities
        #expect(identities.anonymousIdleDays == 90)
        #expect(identities.providers["apple"]?.issuers == ["https://appleid.apple.com"] && identities.providers["apple"]?.trustsEmail == true)
        #expect(identities.providers["google"]?.jwksURL == "https://www.googleapis.com/oauth2/v3/certs")
        #expect(identities.providers["corp"]?.issuers == ["https://id.example.com"] && identities.providers["corp"]?.trustsEmail == false)
        #expect(identities.customJWT["partner"]?.keys == .hs256(secret: Array("a-partner-secret-of-at-least-32-bytes-long".utf8)))
        #expect(identities.customJWT["partner"]?.claims == ["name": "name", "email": "email"])
        let app = try #require(config.engine.apps.first)
        #expect(app.providers.count == 7 && app.customToken == "partner" && app.customFunction == "my_login_function")
        #expect(config.engine.parseApps.first?.authProviders == ["anonymous", "apple", "google", "corp"])
    }

    @Test(arguments: [
        ("identities: { providers: { apple: {} } }", "identities.providers.apple.audiences: is required: the client ids tokens must be issued to"),
        ("identities: { providers: { corp: { audiences: [a] } } }", "identities.providers.corp.issuer: is required for a provider other than apple and google"),
        ("identities: { providers: { corp: { audiences: [a], issuer: x, jwks_url: http://keys.example.com } } }",
         "identities.providers.corp.jwks_url: must be an https URL (http only for a loopback host)"),
        ("identities: { providers: { anonymous: { audiences: [a] } } }",
         "identities.providers.anonymous: a provider's name is 1 to 32 lowercase letters, digits, - and _, and not one of anonymous, api-key, custom-function, email, password"),
        ("identities: { custom_jwt: { p: { audiences: [a] } } }", "identities.custom_jwt.p: needs exactly one of hs256_secret_file, public_key_file and jwks_url"),
        ("app_services: { apps: [{ id: a, providers: [oauth2-apple] }] }", "app_services.apps[0].providers: oauth2-apple needs identities.providers.apple with its audiences"),
        ("app_services: { apps: [{ id: a, providers: [oauth2-facebook] }] }",
         "app_services.apps[0].providers: oauth2-facebook is not one of anon-user, api-key, custom-function, custom-token, local-userpass, oauth2-apple, oauth2-google"),
        ("app_services: { apps: [{ id: a, providers: [custom-token] }] }", "app_services.apps[0].custom_token: custom-token needs the name of an identities.custom_jwt issuer"),
        ("parse: { apps: [{ id: a, auth: [facebook] }] }", "parse.apps[0].auth: facebook is neither anonymous nor a provider under identities.providers"),
        ("identities: { anonymous: { idle_days: 0 } }", "identities.anonymous.idle_days: must be between 1 and 3650"),
    ])
    func identityMistakesNameTheirKey(yaml: String, message: String) throws {
        do {
            _ = try LatchkeyConfig(ConfigSource(yaml: yaml, fileDirectory: nil, environment: [:], sections: LatchkeyConfig.sections))
            Issue.record("accepted: \(yaml)")
        } catch let error as ConfigError {
            #expect(error.description == message)
        }
    }
}
