import Foundation

/// Clients made through the admin API or CLI (the configuration file's live in the configuration). Every replica
/// reads them again every few seconds.
public protocol ClientRepository: Sendable {
    func clients() async throws -> [ClientRecord]
    /// False when a client with that id exists already.
    func insertClient(_ client: ClientRecord) async throws -> Bool
    /// False when there is none.
    func deleteClient(id: String) async throws -> Bool
    /// Replaces a confidential client's secret hash; false when there is no such client.
    func setClientSecret(id: String, secretHash: Data) async throws -> Bool
    /// Records a client assertion's id (private_key_jwt) until it expires; false when it was recorded already.
    func useClientAssertion(idHash: Data, expiresAt: Date) async throws -> Bool
}

/// A stored client: its settings as a JSON document (`ClientDocument`), its secret as a SHA-256.
public struct ClientRecord: Codable, Sendable, Equatable {
    public var id: String
    public var name: String
    public var document: String
    public var secretHash: Data?
    public var createdAt: Date

    public init(id: String, name: String, document: String, secretHash: Data?, createdAt: Date) {
        self.id = id; self.name = name; self.document = document; self.secretHash = secretHash; self.createdAt = createdAt
    }
}
