import Foundation

/// Test mode's state as one JSON document, the emulator's export and import (`POST /testing/v1/export` and
/// `/import`, `serve --testing --import FILE`, `testing.export_on_exit`): every account in the neutral export's shape
/// (ids, objectIds, password hashes, identities, passkeys, custom data), its second factors and roles. A test mode
/// server has a new server key each run, so sealed secrets travel open: an authenticator's key as Base32, as
/// `POST /testing/v1/users` takes it. Recovery codes are one-way hashes under that key and do not travel.
public struct TestingState: Codable, Sendable {
    public static let currentFormat = "latchkey-testing-state/1"

    public var format: String
    public var exportedAt: String
    public var users: [NeutralUserLine]
    public var secondFactors: [Factor]
    public var roles: [Role]

    public struct Factor: Codable, Sendable {
        public var userId: String
        public var kind: String
        /// The address or number of a code factor.
        public var target: String?
        /// An authenticator's key, Base32.
        public var secret: String?
        enum CodingKeys: String, CodingKey { case userId = "user_id", kind, target, secret }
    }

    public struct Role: Codable, Sendable {
        public var userId: String
        public var role: String
        enum CodingKeys: String, CodingKey { case userId = "user_id", role }
    }

    enum CodingKeys: String, CodingKey {
        case format, exportedAt = "exported_at", users, secondFactors = "second_factors", roles
    }

    /// A decoding failure in words: which field, and what was wrong with it.
    public static func describe(_ error: any Error) -> String {
        func path(_ keys: [any CodingKey]) -> String {
            keys.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined().trimmingCharacters(in: CharacterSet(charactersIn: "."))
        }
        switch error as? DecodingError {
        case .keyNotFound(let key, let context)?: return "\(path(context.codingPath + [key])) is missing"
        case .typeMismatch(_, let context)?, .valueNotFound(_, let context)?: return "\(path(context.codingPath)) has the wrong type"
        case .dataCorrupted(let context)?: return context.codingPath.isEmpty ? "not JSON" : "\(path(context.codingPath)) is not valid"
        default: return "not JSON"
        }
    }
}

/// What an import did.
public struct TestingImportResult: Sendable, Equatable {
    public var users: Int
    public var secondFactors: Int
    public var roles: Int
    /// Lines the import refused, with why (an account already here, an address another holds, ...).
    public var problems: [String]
}

extension TestingService {
    /// Every account and what it holds, as `TestingState`.
    public func exportState() async throws -> TestingState {
        let operators = OperatorService(engine: engine)
        var users: [NeutralUserLine] = [], factors: [TestingState.Factor] = [], roles: [TestingState.Role] = []
        var cursor: UserCursor?
        repeat {
            let page = try await operators.adminListUsers(prefix: nil, after: cursor, limit: 500)
            let ids = page.users.map(\.id)
            let identities = try await operators.identities(ofUsers: ids)
            let passkeys = Dictionary(grouping: try await operators.passkeys(ofUsers: ids), by: \.userId)
            let customData = Dictionary(grouping: try await operators.customData(ofUsers: ids), by: \.userId)
            for user in page.users {
                users.append(NeutralUserLine(user, identities: identities[user.id] ?? [], passkeys: passkeys[user.id] ?? [],
                                             customData: customData[user.id] ?? []))
                for factor in try await reader.secondFactors.secondFactors(userId: user.id) where factor.kind != .recovery {
                    let key = factor.kind == .totp ? factor.secret.flatMap { keys.secondFactor.open([UInt8]($0)) } : nil
                    factors.append(.init(userId: user.id, kind: factor.kind.rawValue, target: factor.target, secret: key.map(Base32.encode)))
                }
                roles += try await reader.users.roles(userId: user.id).map { .init(userId: user.id, role: $0.role) }
            }
            cursor = page.next
        } while cursor != nil
        return TestingState(format: TestingState.currentFormat, exportedAt: time.now().ISO8601Format(), users: users,
                            secondFactors: factors, roles: roles)
    }

    /// Adds the document's accounts to what is here (wipe first for exactly its state), as `latchkey import` would,
    /// then their factors and roles; one transaction for the accounts, one for the rest.
    public func importState(_ state: TestingState) async throws -> TestingImportResult {
        guard state.format == TestingState.currentFormat else {
            throw TestingRefusal.badField("format must be \(TestingState.currentFormat) (a document of POST /testing/v1/export)")
        }
        var batch: [ImportedUser] = [], problems: [String] = []
        for (index, line) in state.users.enumerated() {
            switch line.imported(line: index + 1) {
            case .success(let user): batch.append(user)
            case .failure(let refusal): problems.append("line \(index + 1): \(refusal.reason)")
            }
        }
        let tally = try await UserImporter(engine: engine).importUsers(batch, ledger: ImportLedger(fieldApp: ""), dryRun: false)
        problems += tally.problems  // "line N: …", N counting the document's users from 1
        let now = time.now()
        var records: [SecondFactorRecord] = []
        for (index, factor) in state.secondFactors.enumerated() {
            guard let kind = SecondFactorRecord.Kind(rawValue: factor.kind), kind != .recovery else {
                throw TestingRefusal.badField("second_factors[\(index)]: kind is totp, email or sms")
            }
            var record = SecondFactorRecord(id: SecureRandom.uuidString(), userId: factor.userId, kind: kind, target: factor.target, createdAt: now)
            if kind == .totp {
                guard let key = factor.secret.flatMap(Base32.decode), key.count >= 10 else {
                    throw TestingRefusal.badField("second_factors[\(index)]: totp needs its secret (Base32 of 10 bytes or more)")
                }
                record = engine.factors.newTOTPFactor(userId: factor.userId, key: key)
            }
            records.append(record)
        }
        for (index, role) in state.roles.enumerated() where !UserRole.known.contains(role.role) {
            throw TestingRefusal.badField("roles[\(index)]: \(role.role) is not one of \(UserRole.known.joined(separator: ", "))")
        }
        let factorRecords = records
        let (factors, roles) = try await transaction { tx -> (Int, Int) in
            var factors = 0, roles = 0
            for record in factorRecords where try await tx.users.find(id: record.userId) != nil {
                try await tx.secondFactors.insert(record)
                factors += 1
            }
            for role in state.roles where try await tx.users.find(id: role.userId) != nil {
                if try await tx.users.grant(UserRole(userId: role.userId, role: role.role, grantedAt: now)) { roles += 1 }
            }
            return (factors, roles)
        }
        return TestingImportResult(users: tally.imported, secondFactors: factors, roles: roles, problems: problems)
    }
}
