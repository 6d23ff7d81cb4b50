import ArgumentParser
import Foundation
import LatchkeyCore

/// Each source's reader over its export file, with the files beside it that some sources need (Firebase's hash
/// parameters, Auth0's password export, Supabase's identities), read before the first user.
struct ImportSources {
    enum Format: String, CaseIterable {
        case parse, jsonl, appServices = "app-services", firebase, auth0, supabase, keycloak
    }

    var firebaseHashConfig: FirebaseHashConfig?
    var auth0Passwords: Auth0PasswordExport?
    var supabaseIdentities: SupabaseIdentities?
    /// The App Services app an App Services export's `custom_data` belongs to.
    var customDataApp: String?

    /// Reads the side files the options name; each is refused for a format it does not belong to.
    init(format: Format, firebaseHashConfig: String?, auth0Passwords: String?, supabaseIdentities: String?) async throws {
        func only(_ wanted: Format, _ key: String, _ path: String?) throws -> String? {
            guard let path else { return nil }
            guard format == wanted else { throw StartupError(key: key, message: "belongs to --format \(wanted.rawValue)", exitCode: .usage) }
            return path
        }
        if let path = try only(.firebase, "--firebase-hash-config", firebaseHashConfig) {
            let text: String
            do { text = try String(contentsOfFile: path, encoding: .utf8) } catch {
                throw StartupError(key: "--firebase-hash-config", message: "cannot read \(path): \(error.localizedDescription)", exitCode: .noInput)
            }
            switch FirebaseHashConfig.parse(text) {
            case .success(let config): self.firebaseHashConfig = config
            case .failure(let problem): throw StartupError(key: "--firebase-hash-config", message: problem.reason, exitCode: .dataError)
            }
        }
        if let path = try only(.auth0, "--auth0-passwords", auth0Passwords) {
            var index = Auth0PasswordExport()
            try await ImportFile(path: path, key: "--auth0-passwords").forEach([String: JSONValue].self) { line, record in
                guard case .success(let document) = record, index.add(document) else {
                    throw StartupError(key: "--auth0-passwords", message: "line \(line) is not a password export line (no passwordHash)", exitCode: .dataError)
                }
            }
            self.auth0Passwords = index
        }
        if let path = try only(.supabase, "--supabase-identities", supabaseIdentities) {
            var identities = SupabaseIdentities()
            try await Self.supabaseRows(ImportFile(path: path, key: "--supabase-identities")) { line, record in
                guard case .success(let row) = record, identities.add(row) else {
                    throw StartupError(key: "--supabase-identities", message: "row \(line) is not an auth.identities row (user_id, provider, provider_id)",
                                       exitCode: .dataError)
                }
            }
            self.supabaseIdentities = identities
        }
    }

    /// Calls `add` with each record of `file` as the engine imports it, or why it could not be read.
    func read(_ format: Format, _ file: ImportFile, now: Date, _ add: (Result<ImportedUser, ImportLineError>) async throws -> Void) async throws {
        switch format {
        case .parse:
            try await file.forEach([String: JSONValue].self) { line, record in try await add(record.map { ParseExportDocument.user($0, line: line) }) }
        case .jsonl:
            try await file.forEach(NeutralUserLine.self) { line, record in try await add(record.flatMap { $0.imported(line: line) }) }
        case .appServices:
            try await file.forEach([String: JSONValue].self) { line, record in
                try await add(record.flatMap { AppServicesExportUser.user($0, line: line, customDataApp: customDataApp) })
            }
        case .firebase:
            let config = firebaseHashConfig
            if file.isCSV {
                try await file.forEachCSVRow(hasHeader: false) { line, row, _ in
                    guard let document = FirebaseExportUser.csvRecord(row) else {
                        return try await add(.failure(ImportLineError(line: line, reason: "\(row.count) columns; Firebase's CSV has 28")))
                    }
                    try await add(FirebaseExportUser.user(document, line: line, hashConfig: config))
                }
            } else {
                try await file.forEach([String: JSONValue].self) { line, record in
                    try await add(record.flatMap { FirebaseExportUser.user($0, line: line, hashConfig: config) })
                }
            }
        case .auth0:
            try await file.forEach([String: JSONValue].self) { line, record in
                try await add(record.flatMap { Auth0ExportUser.user($0, line: line, passwords: auth0Passwords) })
            }
        case .supabase:
            try await Self.supabaseRows(file) { line, record in
                try await add(record.flatMap { SupabaseExportUser.user($0, line: line, identities: supabaseIdentities, now: now) })
            }
        case .keycloak:
            try await file.forEach([String: JSONValue].self) { line, record in try await add(record.flatMap { KeycloakExportUser.user($0, line: line) }) }
        }
    }

    /// A PostgreSQL table's rows as `COPY … CSV HEADER` (empty cells are NULL) or as JSON lines write them.
    private static func supabaseRows(_ file: ImportFile, _ body: (Int, Result<[String: JSONValue], ImportLineError>) async throws -> Void) async throws {
        guard file.isCSV else { return try await file.forEach([String: JSONValue].self, body) }
        try await file.forEachCSVRow(hasHeader: true) { line, row, header in
            guard let header, header.count == row.count else {
                return try await body(line, .failure(ImportLineError(line: line, reason: "\(row.count) cells under a header of \(header?.count ?? 0)")))
            }
            var record: [String: JSONValue] = [:]
            for (name, cell) in zip(header, row) where !cell.isEmpty { record[name] = .string(cell) }
            try await body(line, .success(record))
        }
    }
}

extension ImportSources.Format: ExpressibleByArgument {}
