import Foundation
@testable import Latchkey
@testable import LatchkeyCore
import Testing

/// The second-factor keys issue Q spells out, read as written there, and their mistakes named by key.
@Suite struct MFAConfigTests {
    static func load(_ yaml: String, environment: [String: String] = [:]) throws -> LatchkeyConfig {
        try LatchkeyConfig(ConfigSource(yaml: yaml, fileDirectory: nil, environment: environment, sections: LatchkeyConfig.sections))
    }

    @Test func theDocumentedConfigurationLoads() throws {
        let config = try Self.load("""
            functions: { send_sms: { kind: command, command: [/bin/true] } }
            mfa:
              methods: [email, totp, sms]
              totp: {issuer: Latchkey}
              sms: {function: send_sms}
            clients: [{id: 22222222-2222-2222-2222-222222222222, mfa: required}, {id: 33333333-3333-3333-3333-333333333333}]
            parse:
              apps: [{id: myAppId, mfa: optional}]
            """)
        #expect(config.engine.mfa.methods == [.email, .totp, .sms])
        #expect(config.engine.mfa.totpIssuer == "Latchkey" && config.engine.mfa.smsFunction == "send_sms")
        #expect(config.engine.clients.map(\.mfa) == [.required, .off])
        #expect(config.engine.parseApps.first?.mfa == .optional)
    }

    @Test func theDefaultsAreEmailAndAuthenticatorWithEveryAppOff() throws {
        let config = try Self.load("parse: { apps: [{id: a}] }")
        #expect(config.engine.mfa.methods == [.email, .totp] && config.engine.mfa.smsFunction == nil)
        #expect(config.engine.clients.allSatisfy { $0.mfa == .off } && config.engine.parseApps.first?.mfa == .off)
        let fromEnvironment = try Self.load("", environment: ["LATCHKEY_MFA_METHODS": "[email]", "LATCHKEY_MFA_TOTP_ISSUER": "Acme"])
        #expect(fromEnvironment.engine.mfa.methods == [.email] && fromEnvironment.engine.mfa.totpIssuer == "Acme")
    }

    @Test(arguments: [
        ("mfa: { methods: [email, push] }", "mfa.methods[1]: must be email, totp or sms (got push)"),
        ("mfa: { methods: [sms] }", "mfa.sms.function: is required when mfa.methods includes sms (Latchkey sends no text itself)"),
        ("mfa: { sms: { function: nowhere } }", "mfa.sms.function: nowhere is not declared under functions:"),
        ("mfa: { totp: { issuer: 'a:b' } }", "mfa.totp.issuer: must be a name without a colon (authenticator apps split the label on it)"),
        ("clients: [{ id: a, mfa: always }]", "clients[0].mfa: must be off, optional or required (got always)"),
        ("parse: { apps: [{ id: a, mfa: yes }] }", "parse.apps[0].mfa: must be off, optional or required (got yes)"),
        ("mfa: { recovery: 10 }", "mfa.recovery: unknown key"),
    ])
    func mistakesNameTheirKey(yaml: String, message: String) throws {
        do {
            _ = try Self.load(yaml)
            Issue.record("accepted: \(yaml)")
        } catch let error as ConfigError {
            #expect(error.description == message)
        }
    }
}
