/// `retention.*`: how long audit events and delivered mail are kept.
struct RetentionSettings: ConfigSection {
    static let section = "retention"
    static let keys = ["audit_days", "sent_mail_days"]

    var auditDays: Int
    var sentMailDays: Int

    init(_ config: SectionReader, defaults: (audit: Int, sentMail: Int)) throws {
        auditDays = try config.int("audit_days", default: defaults.audit, range: 1...36500)
        sentMailDays = try config.int("sent_mail_days", default: defaults.sentMail, range: 1...3650)
    }
}
