import Foundation

/// A registered client application (the `client_id` apps send).
public struct ClientApplication: Sendable, Equatable {
    public var id: String
    public var name: String
    /// Scopes this client may ask for beyond the standard OIDC ones (`clients[].scopes`).
    public var scopes: [String]
    /// Whether its sign-ins ask for a second factor (`clients[].mfa`).
    public var mfa: MFAPolicy
    /// Where the browser sign-in (the OpenID provider) may send users back to, matched exactly (a loopback URI
    /// with any port, RFC 8252 §7.3); none: the client does not sign in through the browser.
    public var redirectURIs: [String]
    /// Where a sign-out it asks for may send users back to, matched exactly.
    public var postLogoutRedirectURIs: [String]
    /// SHA-256 of a confidential client's secret (`clients[].secret_file`); nil for a public client.
    public var secretDigest: [UInt8]?
    /// First-party clients sign users in without asking; third-party ones ask for consent once per scope set.
    public var firstParty: Bool
    /// The grants it may use (`clients[].grant_types`); by default what its redirect URIs and party make it (`GrantType`).
    public var grantTypes: Set<GrantType>
    /// It registered itself (RFC 7591): always third-party, removable by the operator or by itself.
    public var selfRegistered = false
    /// Its `client_id` is the URL of its metadata document, fetched from this host: third-party always.
    public var metadataDocumentHost: String? = nil
    /// When that document is to be fetched again (its caching time, as stored).
    public var metadataRefreshAfter: Date? = nil
    /// Where its public keys are: it authenticates at the token endpoint with a signed assertion (private_key_jwt).
    public var jwksURI: String? = nil

    public init(id: String, name: String, scopes: [String] = [], mfa: MFAPolicy = .off, redirectURIs: [String] = [],
                postLogoutRedirectURIs: [String] = [], secretDigest: [UInt8]? = nil, firstParty: Bool = true,
                grantTypes: Set<GrantType>? = nil) {
        self.id = id; self.name = name; self.scopes = scopes; self.mfa = mfa; self.redirectURIs = redirectURIs
        self.postLogoutRedirectURIs = postLogoutRedirectURIs; self.secretDigest = secretDigest; self.firstParty = firstParty
        self.grantTypes = grantTypes ?? GrantType.defaults(redirectURIs: redirectURIs, firstParty: firstParty)
    }

    public var isConfidential: Bool { secretDigest != nil }

    /// It signs users in only through the browser (the OpenID provider), never through the native API: its sessions
    /// are the provider's, refreshes included (audit and metrics dialect `openid`).
    public var signsInOnlyThroughBrowser: Bool {
        grantTypes.contains(.authorizationCode) && grantTypes.isDisjoint(with: [.password, .oob, .continuationToken])
    }

    /// What the person signing in knows it as: a web app (a server with its secret, or an https page) rather than a
    /// native app, which signs in through the browser too but returns to a loopback or app-scheme URI (RFC 8252).
    public var isWebApp: Bool {
        signsInOnlyThroughBrowser && (isConfidential || redirectURIs.contains { $0.lowercased().hasPrefix("https://") })
    }

    /// Client ids are GUIDs, which SDKs send in either case. Compared byte by byte with ASCII letters folded:
    /// Foundation's `caseInsensitiveCompare` goes through a locale-aware comparison, 2 % of a refresh grant's CPU.
    public static func sameID(_ a: String, _ b: String) -> Bool {
        a.utf8.count == b.utf8.count && zip(a.utf8, b.utf8).allSatisfy { x, y in
            x == y || (x | 0x20 == y | 0x20 && (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(x | 0x20))
        }
    }
}

/// One sign-up attribute of the operator's schema.
public struct AttributeDefinition: Sendable, Equatable {
    public enum Kind: String, Sendable { case string, boolean, number }
    public var name: String
    public var kind: Kind
    public var required: Bool
    public var regex: String?
    /// What the sign-up page calls it, by language (`anyLanguage` for one text in every language).
    public var labels: [String: String] = [:]
    public static let anyLanguage = "*"
    public init(name: String, kind: Kind = .string, required: Bool = false, regex: String? = nil) {
        self.name = name; self.kind = kind; self.required = required; self.regex = regex
    }

    /// The label in `language`, else the one for every language, else the English one, else the name itself.
    public func label(in language: String) -> String {
        labels[language] ?? labels[Self.anyLanguage] ?? labels["en"] ?? name
    }
}

public struct CodePolicy: Sendable, Equatable {
    public var length = 8
    public var ttlSeconds = 1800
    public var maxAttempts = 5
    /// Advertised to clients as `interval`; resends are throttled by the rate limits.
    public var resendIntervalSeconds = 0
    public init() {}
}

public struct PasswordPolicy: Sendable, Equatable {
    public var scrypt = ScryptParameters()
    public var minLength = 8
    public var maxLength = 256
    public init() {}
}

public struct TokenPolicy: Sendable, Equatable {
    public var accessTTLSeconds = 3600
    public var refreshTTLSeconds = 2_592_000
    /// A rotated refresh token presented again within this window is treated as a client retry, not theft.
    public var refreshReuseGraceSeconds = 5
    /// Lifetime of a continuation token handed out between flow steps.
    public var flowTTLSeconds = 600
    public init() {}
}

/// Everything the engine needs to know about the deployment; built from the YAML config by the executable.
public struct EngineSettings: Sendable {
    public var publicURL: String
    public var clients: [ClientApplication]
    public var attributes: [AttributeDefinition]
    public var codes = CodePolicy()
    public var passwords = PasswordPolicy()
    public var tokens = TokenPolicy()
    /// Concurrent scrypt computations (defaults to the core count) and how many may wait for one.
    public var hashingConcurrency = ProcessInfo.processInfo.activeProcessorCount
    public var hashingQueueLimit = 64
    /// Password reset answers unknown and code-only addresses like real ones until the code step.
    public var resetEnumerationProtection = false
    /// A password reset ends the account's user API keys as well as its sessions.
    public var resetRevokesApiKeys = true
    /// `accounts.legacy_password.function`: asked once whether an imported account's first password is right.
    public var legacyPasswordFunction: String?
    /// An address proof keeps identities whose issuer verified that address when they were linked.
    public var keepIdentitiesVerifyingTheAddress = false
    /// Seconds the client is told to wait between `poll_completion` calls.
    public var resetPollIntervalSeconds = 1
    public var limits = LimitSettings()
    /// App Services apps; their link tokens live `linkTokenTTLSeconds`.
    public var apps: [AppServicesApp] = []
    public var linkTokenTTLSeconds = 1800
    /// App Services sessions: access tokens 30 minutes, refresh tokens (sessions) 60 days, as the hosted service;
    /// anonymous sessions five years (the hosted service's are effectively unending; idle anonymous accounts are
    /// purged after `identities.anonymousIdleDays` whatever their sessions say).
    public var appAccessTTLSeconds = 1800
    public var appSessionTTLSeconds = 5_184_000
    public var appAnonymousSessionTTLSeconds = 157_680_000
    /// Parse apps; their sessions live `parseSessionTTLSeconds` (a year, as Parse Server's default).
    public var parseApps: [ParseApp] = []
    public var parseSessionTTLSeconds = 31_536_000
    /// Where the Parse dialect is mounted: its mailed links point below it.
    public var parseMount = "/parse"
    /// How many fields (attributes and custom fields together) a user may hold, and their size as JSON.
    public var customFieldLimits = FieldLimits()
    /// Anonymous accounts and the OpenID issuers that sign users in.
    public var identities = IdentitySettings()
    /// Second factors: which ones users may enrol, and how they are delivered.
    public var mfa = MFASettings()
    /// The operator's APIs that access tokens may be asked for (RFC 8707 resource indicators).
    public var resources: [ProtectedResource] = []
    /// The OpenID provider's browser sessions and codes.
    public var openID = OpenIDSettings()
    /// Passkeys on the hosted pages.
    public var passkeys = PasskeySettings()
    /// How long a replaced signing key stays published: the longest-lived token it signs (access and ID tokens of
    /// every dialect) plus five minutes of clock skew between replicas and verifiers.
    public var signingKeyRetentionSeconds: Double {
        Double(([tokens.accessTTLSeconds, appAccessTTLSeconds] + resources.compactMap(\.accessTTLSeconds)).max()! + 300)
    }
    /// Passwords refused as too common (lowercase). Loaded from the shipped list by the executable.
    public var commonPasswords: Set<String> = []
    /// How long audit events and the rows of delivered mail are kept.
    public var auditRetentionDays = 365
    public var sentMailRetentionDays = 30

    public init(publicURL: String, clients: [ClientApplication], attributes: [AttributeDefinition]) {
        self.publicURL = publicURL; self.clients = clients; self.attributes = attributes
    }

    public var issuer: String { publicURL }
}

/// The most fields a user may hold (attributes and custom fields together) and their size as JSON text.
public struct FieldLimits: Sendable, Equatable {
    public var count = 64
    public var bytes = 16 * 1024
    public init() {}
}
