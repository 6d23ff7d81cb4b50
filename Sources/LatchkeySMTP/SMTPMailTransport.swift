import LatchkeyCore

/// `mail.transport: smtp`: each batch goes over one connection.
public struct SMTPMailTransport: MailTransport {
    let session: SMTPSession

    public init(settings: SMTPSettings, from: MailAddress) {
        session = SMTPSession(settings: settings, from: from)
    }

    public func deliver(_ message: MailMessage) async throws {
        let result = await deliver(batch: [message])[0]
        if result != .sent { throw result }
    }

    public func deliver(batch: [MailMessage]) async -> [DeliveryResult] {
        await session.send(batch)
    }
}
