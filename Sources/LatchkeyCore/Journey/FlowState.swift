import Foundation

/// A journey in flight: where it stands, who drives it, what its kind of journey carries, and what it knows after
/// the first factor. Each kind has its own details (`JourneyDetails`), so a sign-in carries no password hash and a
/// reset nothing but whether it is a decoy.
public struct FlowState: Sendable, Equatable {
    public enum Stage: String, Codable, Sendable {
        case started, codeSent, codeVerified, passwordRequired, attributesRequired, passwordChallenged, completed
        /// After the first factor: a second one is due (`mfaRequired` until a method is chosen, `mfaChallenged` once
        /// its code is out), or one must be enrolled first (registration, ending in `registrationVerified`).
        case mfaRequired, mfaChallenged
        case registrationRequired, registrationChallenged, registrationPreverified, registrationVerified
    }
    public var stage: Stage
    public var client: JourneyClient
    public var details: JourneyDetails
    public var factors = FactorProgress()

    init(stage: Stage, client: JourneyClient, details: JourneyDetails) {
        self.stage = stage; self.client = client; self.details = details
    }

    /// A journey's first state: every sign-in, sign-up and reset begins here and moves on only by the table's events
    /// (`FlowRecord.take`).
    public static func started(client: JourneyClient, details: JourneyDetails) -> FlowState {
        FlowState(stage: .started, client: client, details: details)
    }

    /// An enrolment begun from a signed-in app (an authenticator, a phone number): a sign-in whose only step left is
    /// the enrolment, which the table moves on from there.
    static func enrolling(client: JourneyClient) -> FlowState {
        FlowState(stage: .registrationRequired, client: client, details: .signIn)
    }

    /// A sign-up's answers so far (nil for the other kinds); setting it makes the details a sign-up's.
    public var signUp: SignUpProgress? {
        get { if case .signUp(let progress) = details { progress } else { nil } }
        set { if let newValue { details = .signUp(newValue) } }
    }

    /// Whether this is a decoy reset.
    public var isDecoy: Bool { if case .reset(let reset) = details { reset.decoy } else { false } }

    /// The same state with the details its flow's kind has (a stored state written before the kinds had their own
    /// details is read as the kind's empty details plus what it carried).
    func of(_ kind: FlowRecord.Kind) -> FlowState {
        var state = self
        switch (kind, details) {
        case (.signIn, .signIn), (.signUp, .signUp), (.passwordReset, .reset): break
        case (.signIn, _): state.details = .signIn
        case (.signUp, _): state.details = .signUp(SignUpProgress())
        case (.passwordReset, _): state.details = .reset(ResetProgress())
        }
        return state
    }
}

/// Who drives a journey: the client, what it said it can take, and whom the journey ends for.
public struct JourneyClient: Sendable, Equatable {
    public var id: String
    /// The client offered `oob` / `password` in challenge_type; decides passwordless vs. password sign-up.
    public var acceptsCode: Bool
    public var acceptsPassword: Bool
    /// What the client said it can handle after the first factor (`mfa_required`, `registration_required`); sent at
    /// the journey's start only, read when the first factor passes.
    public var capabilities: [String] = []
    public var audience: JourneyAudience = .app

    public init(id: String, acceptsCode: Bool, acceptsPassword: Bool, capabilities: [String] = [], audience: JourneyAudience = .app) {
        self.id = id; self.acceptsCode = acceptsCode; self.acceptsPassword = acceptsPassword; self.capabilities = capabilities
        self.audience = audience
    }
}

/// What only one kind of journey carries.
public enum JourneyDetails: Sendable, Equatable {
    case signIn
    case signUp(SignUpProgress)
    case reset(ResetProgress)
}

/// A sign-up's collected answers, until the account is created.
public struct SignUpProgress: Sendable, Equatable {
    public var passwordHash: String?
    public var attributes: [String: JSONValue] = [:]
    /// The mailed code was right: the address is proven.
    public var emailVerified = false
    public init(passwordHash: String? = nil, attributes: [String: JSONValue] = [:], emailVerified: Bool = false) {
        self.passwordHash = passwordHash; self.attributes = attributes; self.emailVerified = emailVerified
    }
}

/// A reset's own state: whether it is a decoy (an address with no password account, kept only when enumeration
/// protection is on; it answers like a real reset and fails at the code step).
public struct ResetProgress: Sendable, Equatable {
    public var decoy = false
    public init(decoy: Bool = false) { self.decoy = decoy }
}

/// What a journey knows once its first factor passed: how (RFC 8176 `amr`, for the tokens once a second factor
/// passes), whether it proved the account's mailbox, and the second factor chosen or being enrolled.
public struct FactorProgress: Sendable, Equatable {
    public var amr: [String] = []
    /// The first factor proved the account's mailbox (a mailed code).
    public var mailboxProven = false
    /// The second factor chosen (a factor id), or the address or number being enrolled, and its channel.
    public var factorId: String?
    public var target: String?
    public var channel: String?
    public init() {}
}

/// Stored as one flat JSON object, the keys unchanged from before the kinds had their own details, so flows in
/// flight survive an upgrade and replicas of both versions read each other's flows.
extension FlowState: Codable {
    private enum Keys: String, CodingKey {
        case stage, clientId, clientAcceptsCode, clientAcceptsPassword, capabilities, browser
        case emailVerified, passwordHash, attributes, decoy, journey
        case amr, mailboxProven, factorId, factorTarget, factorChannel
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Keys.self)
        stage = try c.decode(Stage.self, forKey: .stage)
        client = JourneyClient(id: try c.decode(String.self, forKey: .clientId),
                               acceptsCode: try c.decode(Bool.self, forKey: .clientAcceptsCode),
                               acceptsPassword: try c.decode(Bool.self, forKey: .clientAcceptsPassword),
                               capabilities: try c.decodeIfPresent([String].self, forKey: .capabilities) ?? [],
                               audience: try c.decodeIfPresent(Bool.self, forKey: .browser) == true ? .browser : .app)
        let signUp = SignUpProgress(passwordHash: try c.decodeIfPresent(String.self, forKey: .passwordHash),
                                    attributes: try c.decodeIfPresent([String: JSONValue].self, forKey: .attributes) ?? [:],
                                    emailVerified: try c.decodeIfPresent(Bool.self, forKey: .emailVerified) ?? false)
        let reset = ResetProgress(decoy: try c.decodeIfPresent(Bool.self, forKey: .decoy) ?? false)
        switch try c.decodeIfPresent(FlowRecord.Kind.self, forKey: .journey) {
        case .signUp: details = .signUp(signUp)
        case .passwordReset: details = .reset(reset)
        // Written before the kinds had their own details: the flow's kind settles it (`of(_:)`).
        case .signIn, nil: details = signUp != SignUpProgress() ? .signUp(signUp) : reset.decoy ? .reset(reset) : .signIn
        }
        factors.amr = try c.decodeIfPresent([String].self, forKey: .amr) ?? []
        factors.mailboxProven = try c.decodeIfPresent(Bool.self, forKey: .mailboxProven) ?? false
        factors.factorId = try c.decodeIfPresent(String.self, forKey: .factorId)
        factors.target = try c.decodeIfPresent(String.self, forKey: .factorTarget)
        factors.channel = try c.decodeIfPresent(String.self, forKey: .factorChannel)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        try c.encode(stage, forKey: .stage)
        try c.encode(client.id, forKey: .clientId)
        try c.encode(client.acceptsCode, forKey: .clientAcceptsCode)
        try c.encode(client.acceptsPassword, forKey: .clientAcceptsPassword)
        if !client.capabilities.isEmpty { try c.encode(client.capabilities, forKey: .capabilities) }
        if client.audience == .browser { try c.encode(true, forKey: .browser) }
        // The earlier version requires these three keys in every flow, whatever its kind.
        let signUp: SignUpProgress, decoy: Bool
        switch details {
        case .signIn: (signUp, decoy) = (SignUpProgress(), false); try c.encode(FlowRecord.Kind.signIn, forKey: .journey)
        case .signUp(let progress): (signUp, decoy) = (progress, false); try c.encode(FlowRecord.Kind.signUp, forKey: .journey)
        case .reset(let reset): (signUp, decoy) = (SignUpProgress(), reset.decoy); try c.encode(FlowRecord.Kind.passwordReset, forKey: .journey)
        }
        try c.encodeIfPresent(signUp.passwordHash, forKey: .passwordHash)
        try c.encode(signUp.attributes, forKey: .attributes)
        try c.encode(signUp.emailVerified, forKey: .emailVerified)
        try c.encode(decoy, forKey: .decoy)
        if !factors.amr.isEmpty { try c.encode(factors.amr, forKey: .amr) }
        if factors.mailboxProven { try c.encode(true, forKey: .mailboxProven) }
        try c.encodeIfPresent(factors.factorId, forKey: .factorId)
        try c.encodeIfPresent(factors.target, forKey: .factorTarget)
        try c.encodeIfPresent(factors.channel, forKey: .factorChannel)
    }
}
