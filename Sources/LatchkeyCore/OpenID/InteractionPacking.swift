import Foundation

/// An interaction as it is sealed: `PackedFields`, version 2 (the device's user code and the resource as optional
/// fields last). A visit sealed as version 1 (the user code alone, present or not) or as JSON (by an earlier release,
/// or a replica not yet upgraded) still opens.
extension Interaction {
    static let packedVersion: UInt8 = 2

    var packed: [UInt8] {
        var w = PackedFields.Writer(version: Self.packedVersion)
        w.string(request.clientId); w.string(request.redirectUri); w.strings(request.scopes)
        w.optional(request.state); w.optional(request.nonce); w.optional(request.codeChallenge)
        w.strings(request.prompt.sorted()); w.optional(request.maxAge); w.optional(request.loginHint); w.optional(request.uiLocales)
        w.data(browser); w.date(expiresAt)
        w.optional(signedInSession); w.optional(flowToken); w.optional(codeTarget); w.optional(decoyAddress)
        w.optional(request.deviceUserCode); w.optional(request.resource)
        return w.bytes
    }

    init?(packed bytes: [UInt8]) {
        if bytes.first == UInt8(ascii: "{") {
            guard let decoded = try? JSONDecoder().decode(Interaction.self, from: Data(bytes)) else { return nil }
            self = decoded
            return
        }
        let current = bytes.first == Self.packedVersion
        guard var r = PackedFields.Reader(bytes, version: current ? Self.packedVersion : 1),
              let clientId = r.string(), let redirectUri = r.string(), let scopes = r.strings(),
              let state = r.optionalString(), let nonce = r.optionalString(), let codeChallenge = r.optionalString(),
              let prompt = r.strings(), let maxAge = r.optionalInt(), let loginHint = r.optionalString(), let uiLocales = r.optionalString(),
              let browser = r.data(), let expiresAt = r.date(),
              let signedInSession = r.optionalString(), let flowToken = r.optionalString(), let codeTarget = r.optionalString(),
              let decoyAddress = r.optionalString() else { return nil }
        let device: String?, resource: String?
        if current {
            guard let code = r.optionalString(), let named = r.optionalString() else { return nil }
            (device, resource) = (code, named)
        } else {
            // Version 1: only a device's visit carries its user code, last.
            (device, resource) = (r.atEnd ? nil : r.string(), nil)
        }
        guard r.atEnd else { return nil }
        let request = AuthorizationRequest(clientId: clientId, redirectUri: redirectUri, scopes: scopes, state: state, nonce: nonce,
                                           codeChallenge: codeChallenge, prompt: Set(prompt), maxAge: maxAge, loginHint: loginHint,
                                           uiLocales: uiLocales, deviceUserCode: device, resource: resource)
        self.init(request: request, browser: browser, expiresAt: expiresAt, signedInSession: signedInSession, flowToken: flowToken,
                  codeTarget: codeTarget, decoyAddress: decoyAddress)
    }
}
