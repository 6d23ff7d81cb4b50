import LatchkeyCore
import LatchkeySMTP

/// `mail.*` apart from the relay: which transport, the sender, templates and the outbox's retry policy.
struct MailSettings: ConfigSection {
    enum Transport: String { case log, file, smtp }

    static let section = "mail"
    static let keys = ["transport", "file", "templates", "from.address", "from.name", "retry_base_seconds", "max_attempts", "lanes"]

    var transport = Transport.log
    var file = "data/mail.jsonl"
    var templates: String?
    var from: MailAddress
    var outbox = OutboxPolicy()
    /// `mail.smtp`, read by its own section.
    var smtp: SMTPSettings?

    init(_ config: SectionReader, publicHost: String) throws {
        let name = try config.string("transport", default: "log")
        guard let transport = Transport(rawValue: name) else { throw config.error("transport", "must be log, file or smtp (got \(name))") }
        self.transport = transport
        file = try config.path("file", default: file)!
        templates = try config.path("templates", default: nil)
        let address = try config.string("from.address", default: "no-reply@\(publicHost)")
        guard EmailAddress.normalize(address) != nil || address.hasSuffix("@localhost") else {
            throw config.error("from.address", "is not an email address")
        }
        from = MailAddress(address: address, name: try config.string("from.name", default: "Latchkey"))
        outbox.retryBaseSeconds = Double(try config.int("retry_base_seconds", default: 30, range: 1...3600))
        outbox.maxAttempts = try config.int("max_attempts", default: 8, range: 1...50)
        outbox.lanes = try config.int("lanes", default: 2, range: 1...16)
        smtp = try SMTPSettings.read(config.source.section(SMTPSettings.section), required: transport == .smtp, helo: publicHost)
    }
}
