import GRDB
import LatchkeyCore

/// The engine's records map onto tables by name: camelCase properties, snake_case columns.
public protocol SnakeCaseColumns: FetchableRecord, EncodableRecord {}

extension SnakeCaseColumns {
    public static var databaseColumnDecodingStrategy: DatabaseColumnDecodingStrategy { .convertFromSnakeCase }
    public static var databaseColumnEncodingStrategy: DatabaseColumnEncodingStrategy { .convertToSnakeCase }
}

extension UserRecord: FetchableRecord, PersistableRecord, SnakeCaseColumns {
    public static let databaseTableName = "users"
}

extension FlowRecord: FetchableRecord, PersistableRecord, SnakeCaseColumns {
    public static let databaseTableName = "flows"
}

extension OTPRecord: FetchableRecord, PersistableRecord, SnakeCaseColumns {
    public static let databaseTableName = "otp_codes"
}

extension SessionRecord: FetchableRecord, PersistableRecord, SnakeCaseColumns {
    public static let databaseTableName = "sessions"
}

extension ActionTokenRecord: FetchableRecord, PersistableRecord, SnakeCaseColumns {
    public static let databaseTableName = "action_tokens"
}

extension SigningKeyRecord: FetchableRecord, PersistableRecord, SnakeCaseColumns {
    public static let databaseTableName = "signing_keys"
}

extension OutboxRecord: FetchableRecord, MutablePersistableRecord, SnakeCaseColumns {
    public static let databaseTableName = "outbox"
    public mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
}

extension AuditEvent: FetchableRecord, MutablePersistableRecord, SnakeCaseColumns {
    public static let databaseTableName = "audit_events"
    public mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
}
