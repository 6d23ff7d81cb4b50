import Foundation
import LatchkeyCore

/// `openid.*`: the OpenID provider's browser sessions (the hosted pages' sign-in cookie), authorization codes, and
/// the device grant's user codes and polling interval.
struct OpenIDProviderSettings: ConfigSection {
    static let section = "openid"
    static let keys = ["session_hours", "code_seconds", "device_code_seconds", "device_poll_seconds", "registration_enabled",
                       "registration_token_file", "registration_unused_days", "metadata_documents_enabled", "metadata_document_hosts",
                       "metadata_document_denied_hosts", "metadata_document_development_hosts"]

    var settings = OpenIDSettings()

    init(_ config: SectionReader) throws {
        settings.sessionTTLSeconds = try config.int("session_hours", default: 336, range: 1...8760) * 3600
        settings.codeTTLSeconds = try config.int("code_seconds", default: 60, range: 1...600)
        settings.deviceCodeTTLSeconds = try config.int("device_code_seconds", default: 600, range: 60...1800)
        settings.devicePollSeconds = try config.int("device_poll_seconds", default: 5, range: 1...60)
        settings.registration.enabled = try config.bool("registration_enabled", default: false)
        // The initial access token a registration must show (RFC 7591 §3); without the file, registration is open.
        if let file = try config.readableFile("registration_token_file") {
            let token = (try? String(contentsOfFile: file, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
            guard token.count >= 32 else {
                throw config.error("registration_token_file", "must hold a token of at least 32 characters (e.g. openssl rand -hex 32)")
            }
            settings.registration.initialTokenDigest = Digest.sha256(Array(token.utf8))
        }
        settings.registration.unusedDays = try config.int("registration_unused_days", default: 30, range: 1...3650)
        settings.metadataDocuments.enabled = try config.bool("metadata_documents_enabled", default: false)
        settings.metadataDocuments.allowedHosts = try config.stringList("metadata_document_hosts", default: [])
        settings.metadataDocuments.deniedHosts = try config.stringList("metadata_document_denied_hosts", default: [])
        settings.metadataDocuments.privateHosts = try config.stringList("metadata_document_development_hosts", default: [])
    }
}
