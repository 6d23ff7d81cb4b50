import LatchkeyCore

/// `mail.transport: smtp`: each batch goes over one connection.
public struct SMTPMailTransport: MailTransport {
    let session: SMTPSession

    public init(settings: SMTPSettings, from: MailAddress) {
        session = SMTPSession(settings: settings, from: from)
    }

    public func deliver(_ message: MailMessage) async throws {
        if case let failure = await deliver(batch: [message])[0], failure != .sent { throw failure }
    }

    public func deliver(batch: [MailMessage]) async -> [DeliveryResult] {
        await session.send(batch)
    }
}
