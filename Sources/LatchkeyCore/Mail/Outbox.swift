import Foundation
import Logging

extension LatchkeyEngine {
    /// Queues a mail in the caller's transaction: it is sent only if the state that caused it is committed.
    func enqueue(_ message: MailMessage, in tx: any StoreWriting) throws {
        let sealed = mailBox.seal(Array(try JSONEncoder().encode(message)))
        let now = time.now()
        try tx.enqueue(mail: OutboxRecord(id: nil, recipient: message.to, subject: message.subject, kind: message.kind.rawValue,
                                          sealedBody: Data(sealed), status: .pending, attempts: 0,
                                          createdAt: now, nextAttemptAt: now, sentAt: nil, lastError: nil))
    }

    /// Delivers due mails once; returns how many went out. The worker calls this in a loop.
    public func deliverPendingMail(via transport: any MailTransport, mailbox: TestingMailbox?, limit: Int = 20) async -> Int {
        let now = time.now()
        let due: [OutboxRecord]
        do { due = try await store.read { try $0.pendingMail(dueBy: now, limit: limit) } } catch {
            logger.error("outbox read failed", metadata: ["error": "\(error)"])
            return 0
        }
        var delivered = 0
        for var record in due {
            guard let sealed = record.sealedBody, let plain = mailBox.open([UInt8](sealed)),
                  let message = try? JSONDecoder().decode(MailMessage.self, from: Data(plain)) else {
                record.status = .failed
                record.lastError = "sealed body unreadable"
                record.sealedBody = nil
                let unreadable = record
                _ = try? await transaction { tx in try tx.update(mail: unreadable) }
                continue
            }
            record.attempts += 1
            do {
                try await transport.deliver(message)
                mailbox?.record(message)
                record.status = .sent
                record.sentAt = time.now()
                record.sealedBody = nil  // nothing secret outlives delivery
                delivered += 1
            } catch {
                // Exponential backoff with a cap; the SMTP work refines temporary vs. permanent failures.
                let delay = min(3600.0, pow(2.0, Double(record.attempts)) * 5)
                record.nextAttemptAt = time.now() + delay
                record.lastError = String(describing: error).prefix(500).description
                if record.attempts >= 10 { record.status = .failed; record.sealedBody = nil }
                logger.warning("mail delivery failed", metadata: ["outbox_id": "\(record.id ?? 0)", "attempt": "\(record.attempts)"])
            }
            let finished = record
            do { try await transaction { tx in try tx.update(mail: finished) } } catch {
                logger.error("outbox update failed", metadata: ["outbox_id": "\(record.id ?? 0)"])
            }
        }
        return delivered
    }
}

extension LatchkeyEngine {
    /// Deletes flows and codes that expired more than a day ago (kept that long to answer `expired_token`).
    public func purgeExpiredState() async {
        let cutoff = time.now() - 86400
        do {
            let removed = try await transaction { tx in try tx.purgeExpired(before: cutoff) }
            if removed > 0 { logger.debug("purged \(removed) expired flow rows") }
        } catch {
            logger.error("purge failed")
        }
    }
}
