import Foundation
import Synchronization

/// The clients made through the admin API or CLI, as this process last read them from the store (every replica
/// reads them again every ten seconds, and at once after its own change). The configuration file's clients are in
/// `EngineSettings.clients` and win on an id both name.
final class ClientRegistry: Sendable {
    private let stored = Mutex<[ClientApplication]>([])

    var clients: [ClientApplication] { stored.withLock { $0 } }

    func replace(_ clients: [ClientApplication]) { stored.withLock { $0 = clients } }
}

/// A stored client's settings, as its JSON document.
struct ClientDocument: Codable {
    var scopes: [String]
    var mfa: String
    var redirectURIs: [String]
    var postLogoutRedirectURIs: [String]
    var firstParty: Bool
    /// How it came to be: nil made by the operator (admin API, console, CLI); `dynamic` registered itself (RFC 7591);
    /// `metadata_document` is its own fetched document (its id the document's URL).
    var origin: String? = nil
    /// The grants it registered for, when it chose them; nil: what its redirect URIs and party give.
    var grantTypes: [String]? = nil
    /// A self-registered client's registration access token (RFC 7592), as its SHA-256 in base64url.
    var registrationTokenHash: String? = nil
    /// A metadata document's: when it is to be fetched again, and the host it came from.
    var refreshAfter: Date? = nil
    var host: String? = nil
    /// A client that authenticates with private_key_jwt: its keys' URL.
    var jwksURI: String? = nil
}

/// What an operator gives for a new client.
public struct NewClient: Sendable {
    public var name: String
    public var scopes: [String] = []
    public var mfa: MFAPolicy = .off
    public var redirectURIs: [String] = []
    public var postLogoutRedirectURIs: [String] = []
    public var confidential = true
    public var firstParty = true
    public init(name: String) { self.name = name }
}

extension LatchkeyEngine {
    /// A registered client by id: the configuration file's, else a stored one.
    public func client(id: String) -> ClientApplication? {
        settings.clients.first(where: { ClientApplication.sameID($0.id, id) })
            ?? clientRegistry.clients.first(where: { ClientApplication.sameID($0.id, id) })
            // The account page's built-in client: always there, never listed among the apps.
            ?? (id == SelfService.clientId ? SelfService.accountClient(publicURL: settings.publicURL) : nil)
    }

    /// Every client: the configuration file's, then the stored ones.
    public var allClients: [ClientApplication] {
        let configured = Set(settings.clients.map { $0.id.lowercased() })
        return settings.clients + clientRegistry.clients.filter { !configured.contains($0.id.lowercased()) }
    }

    /// Reads the stored clients again (the background worker, every ten seconds).
    public func reloadClients() async throws {
        clientRegistry.replace(try await reader.clients.clients().compactMap(Self.application))
    }

    /// How a client came to be, as the admin API, the console and `latchkey clients` name it.
    public func source(of client: ClientApplication) -> String {
        if client.metadataDocumentHost != nil { return "metadata_document" }
        if client.selfRegistered { return "registration" }
        return isStoredClient(client.id) ? "admin" : "configuration"
    }

    public func isStoredClient(_ id: String) -> Bool {
        client(id: id) != nil && !settings.clients.contains(where: { ClientApplication.sameID($0.id, id) })
    }

    static func application(_ record: ClientRecord) -> ClientApplication? {
        guard let document = try? JSONDecoder().decode(ClientDocument.self, from: Data(record.document.utf8)) else { return nil }
        var client = ClientApplication(id: record.id, name: record.name, scopes: document.scopes, mfa: MFAPolicy(rawValue: document.mfa) ?? .off,
                                       redirectURIs: document.redirectURIs, postLogoutRedirectURIs: document.postLogoutRedirectURIs,
                                       secretDigest: record.secretHash.map { [UInt8]($0) }, firstParty: document.firstParty,
                                       grantTypes: document.grantTypes.map { Set($0.compactMap(GrantType.init(name:))) })
        client.selfRegistered = document.origin == ClientRegistration.origin
        if document.origin == Tokens.metadataOrigin { client.metadataDocumentHost = document.host ?? record.id }
        client.jwksURI = document.jwksURI
        client.metadataRefreshAfter = document.refreshAfter
        return client
    }
}

extension ClientApplication {
    /// Why a URI cannot be a redirect target, or nil: absolute, no fragment, `https`, `http` only to a loopback host,
    /// or an app's own scheme (never `javascript:`, `data:`, `file:`).
    public static func redirectURIProblem(_ uri: String) -> String? {
        guard let parts = URLComponents(string: uri), let scheme = parts.scheme?.lowercased(), parts.fragment == nil else {
            return "\(uri) is not an absolute URI without a fragment"
        }
        // `http://HOST/*` is test mode's own client's (any loopback path); a configured client names its URIs.
        if parts.path.contains("*") { return "\(uri) has a wildcard: name each redirect URI" }
        switch scheme {
        case "http":
            guard let host = parts.host, ["127.0.0.1", "[::1]", "::1", "localhost"].contains(host) else {
                return "\(uri) must use https (plain http only to 127.0.0.1, [::1] or localhost)"
            }
        case "https":
            guard parts.host?.isEmpty == false else { return "\(uri) has no host" }
        case "javascript", "data", "file", "vbscript":
            return "\(uri) uses a scheme that cannot be a redirect"
        default: break
        }
        return nil
    }
}
