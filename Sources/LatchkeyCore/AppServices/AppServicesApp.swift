/// One App Services app (`/api/client/v2.0/app/{id}/...`): how its users confirm their email and reset passwords.
public struct AppServicesApp: Sendable, Equatable {
    public enum ConfirmationMode: String, Sendable { case auto, email, function }
    public enum ResetMode: String, Sendable { case email, function }
    public var id: String
    public var confirmation: ConfirmationMode
    /// Where confirmation links point; empty = Latchkey's own page.
    public var confirmationURL: String
    public var reset: ResetMode
    public var resetURL: String
    public var confirmationFunction: String?
    public var resetFunction: String?
    /// The provider types its users sign in with (`local-userpass`, `anon-user`, `oauth2-apple`, `oauth2-google`).
    public var providers: Set<String> = ["local-userpass"]
    /// `custom-token`: the name of the `identities.custom_jwt` issuer its tokens come from.
    public var customToken: String?
    /// `custom-function`: the name of the function (under `functions:`) that turns a login payload into an identity.
    public var customFunction: String?
    /// The functions (under `functions:`) its users call by name: `user.functions.NAME(args)`.
    public var functions: [String] = []

    public init(id: String, confirmation: ConfirmationMode = .email, confirmationURL: String = "", reset: ResetMode = .email,
                resetURL: String = "") {
        self.id = id; self.confirmation = confirmation; self.confirmationURL = confirmationURL; self.reset = reset
        self.resetURL = resetURL
    }
}

extension LatchkeyEngine {
    public func requireApp(_ id: String) throws -> AppServicesApp {
        guard let app = settings.apps.first(where: { $0.id == id }) else { throw LatchkeyError.unknownClient }
        return app
    }
}
