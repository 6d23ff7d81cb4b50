import Foundation
import Testing
@testable import LatchkeyCore

/// A flow's state is stored as the flat JSON object the earlier version wrote, so flows in flight survive an upgrade
/// and replicas of both versions read each other's flows; in Swift each kind has its own details.
@Suite struct FlowStateCodingTests {
    /// Exactly what the earlier version stored for a sign-up waiting for its password.
    static let earlierSignUp = #"""
    {"stage":"passwordRequired","clientAcceptsCode":true,"clientAcceptsPassword":true,"emailVerified":true,
     "attributes":{"displayName":"Zoë"},"clientId":"app","decoy":false,"capabilities":["mfa_required"],"browser":true}
    """#
    static let earlierReset = #"""
    {"stage":"codeSent","clientAcceptsCode":true,"clientAcceptsPassword":false,"emailVerified":false,"attributes":{},
     "clientId":"app","decoy":false,"amr":["otp"],"mailboxProven":true,"factorId":"f1"}
    """#

    func record(_ kind: FlowRecord.Kind, _ json: String) throws -> FlowRecord {
        let state = try JSONDecoder().decode(FlowState.self, from: Data(json.utf8))
        return FlowRecord(id: "f", tokenHash: Data(), kind: kind, email: "ada@example.com", userId: nil, state: state,
                          expiresAt: Date(timeIntervalSince1970: 0), createdAt: Date(timeIntervalSince1970: 0))
    }

    @Test func whatTheEarlierVersionStoredReadsAsItsKind() throws {
        let signUp = try record(.signUp, Self.earlierSignUp).state
        #expect(signUp.details == .signUp(SignUpProgress(passwordHash: nil, attributes: ["displayName": .string("Zoë")], emailVerified: true)))
        #expect(signUp.client == JourneyClient(id: "app", acceptsCode: true, acceptsPassword: true, capabilities: ["mfa_required"],
                                               audience: .browser))
        // A reset that was no decoy carried nothing of its own: its kind settles its details.
        let reset = try record(.passwordReset, Self.earlierReset).state
        #expect(reset.details == .reset(ResetProgress(decoy: false)))
        #expect(reset.factors.amr == ["otp"] && reset.factors.mailboxProven && reset.factors.factorId == "f1")
        #expect(reset.client.audience == .app && reset.client.capabilities.isEmpty)
    }

    @Test func whatThisVersionStoresCarriesTheKeysTheEarlierOneRequires() throws {
        var state = FlowState(stage: .codeSent, client: JourneyClient(id: "app", acceptsCode: true, acceptsPassword: false),
                              details: .reset(ResetProgress(decoy: true)))
        state.factors.channel = "sms"
        let object = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(state)) as? [String: Any])
        for key in ["stage", "clientAcceptsCode", "clientAcceptsPassword", "emailVerified", "attributes", "clientId", "decoy"] {
            #expect(object[key] != nil, "\(key)")
        }
        #expect(object["decoy"] as? Bool == true && object["journey"] as? String == "password_reset")
        #expect(try JSONDecoder().decode(FlowState.self, from: JSONEncoder().encode(state)) == state)
    }
}
