import Foundation
import Logging
import Metrics

/// Delivery policy of the outbox worker.
public struct OutboxPolicy: Sendable {
    /// Temporary failures are retried after base * 2^(attempt-1) seconds (±25 % jitter), at most an hour apart.
    public var retryBaseSeconds = 30.0
    public var maxAttempts = 8
    /// Messages fetched per round, and how many connections send them side by side.
    public var batchSize = 20
    public var lanes = 2
    /// How long a claim holds a mail before another sender may take it: renewed every `claimRenewSeconds` while
    /// the send is under way, so a sender that died (killed, its machine gone) delays its mails by seconds. A claimed
    /// mail whose outcome could not be recorded is tried again after this long, not at once.
    public var claimLeaseSeconds = 6.0
    public var claimRenewSeconds = 2.0
    public init() {}
}

extension LatchkeyEngine {
    /// Queues a mail in the caller's transaction: it is sent only if the state that caused it is committed.
    func enqueue(_ message: MailMessage, in tx: any Repositories) async throws {
        let sealed = keys.mail.seal(Array(try JSONEncoder().encode(message)))
        let now = time.now()
        try await tx.outbox.enqueue(OutboxRecord(id: nil, recipient: message.to, subject: message.subject, kind: message.kind.rawValue,
                                          sealedBody: Data(sealed), status: .pending, attempts: 0,
                                          createdAt: now, nextAttemptAt: now, sentAt: nil, lastError: nil))
    }

    /// Delivers the mails that are due, once; returns how many went out. The worker calls this in a loop.
    /// At least once: a crash between the relay's acceptance and the row update resends that one mail.
    /// Rows are claimed (their next attempt moved a lease ahead) before sending; returns -1 when the store failed,
    /// so the worker backs off instead of spinning.
    public func deliverPendingMail(via transport: any MailTransport, mailbox: TestingMailbox?, policy: OutboxPolicy = OutboxPolicy()) async -> Int {
        let now = time.now()
        let due: [OutboxRecord]
        do {
            due = try await store.direct.outbox.claimDue(dueBy: now, limit: policy.batchSize, leaseUntil: now + policy.claimLeaseSeconds)
        } catch is CancellationError {
            return 0  // shutting down
        } catch {
            logger.error("outbox claim failed", metadata: ["error": "\(error)"])
            return -1
        }
        guard !due.isEmpty else { return 0 }
        // Keeps the claims alive while the relay takes its time; ends with the send.
        let renewal = renewClaims(ids: due.compactMap(\.id), policy: policy)
        defer { renewal.cancel() }
        var ready: [(OutboxRecord, MailMessage)] = []
        var finished: [OutboxRecord] = []
        for var record in due {
            if let sealed = record.sealedBody, let plain = keys.mail.open([UInt8](sealed)),
               let message = try? JSONDecoder().decode(MailMessage.self, from: Data(plain)) {
                ready.append((record, message))
            } else {
                record.status = .failed
                record.claimedUntil = nil
                record.lastError = "sealed body unreadable"
                finished.append(record)
            }
        }
        // Split into lanes, each sent over its own connection, side by side.
        let laneCount = max(1, min(policy.lanes, ready.count))
        let lanes = (0..<laneCount).map { lane in stride(from: lane, to: ready.count, by: laneCount).map { ready[$0] } }
        let outcomes = await withTaskGroup(of: [(OutboxRecord, MailMessage, DeliveryResult)].self) { group in
            for lane in lanes where !lane.isEmpty {
                group.addTask {
                    let results = await transport.deliver(batch: lane.map(\.1))
                    return zip(lane, results).map { ($0.0, $0.1, $1) }
                }
            }
            return await group.reduce(into: []) { $0 += $1 }
        }
        var delivered = 0
        for (var record, message, result) in outcomes {
            record.attempts += 1
            record.claimedUntil = nil
            switch result {
            case .sent:
                record.status = .sent
                record.sentAt = time.now()
                record.sealedBody = nil  // nothing secret outlives delivery
                record.lastError = nil
                mailbox?.record(message)
                delivered += 1
                Counter(label: "latchkey_mail_sent_total").increment()
            case .permanentFailure(let reply):
                record.status = .failed
                record.lastError = String(reply.prefix(500))
                Counter(label: "latchkey_mail_failed_total").increment()
                logger.error("mail refused for good", metadata: ["outbox_id": "\(record.id ?? 0)", "reply": "\(reply.prefix(200))"])
            case .temporaryFailure(let why):
                record.lastError = String(why.prefix(500))
                if record.attempts >= policy.maxAttempts {
                    record.status = .failed
                    Counter(label: "latchkey_mail_failed_total").increment()
                } else {
                    let backoff = min(3600, policy.retryBaseSeconds * pow(2, Double(record.attempts - 1)))
                    record.nextAttemptAt = time.now() + backoff * Double.random(in: 0.75...1.25)
                    Counter(label: "latchkey_mail_retried_total").increment()
                }
                logger.warning("mail delivery failed, will retry", metadata: [
                    "outbox_id": "\(record.id ?? 0)", "attempt": "\(record.attempts)", "reason": "\(why.prefix(200))"])
            }
            finished.append(record)
        }
        let updates = finished
        do { try await transaction { tx in for record in updates { try await tx.outbox.update(record) } } } catch {
            logger.error("outbox update failed: the claimed mails are tried again after the lease")
            return -1
        }
        return delivered
    }

    private func renewClaims(ids: [Int64], policy: OutboxPolicy) -> Task<Void, Never> {
        Task { [store, time, logger] in
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(policy.claimRenewSeconds))
                if Task.isCancelled { return }
                do { try await store.direct.outbox.renewClaims(ids: ids, until: time.now() + policy.claimLeaseSeconds) } catch {
                    logger.warning("outbox claim renewal failed", metadata: ["error": "\(error)"])
                }
            }
        }
    }

    /// At the start of a server that alone sends from its store (SQLite): the claims left are those of its own
    /// process that died mid-send; its mails go out now, not after the lease.
    public func releaseMailClaims() async {
        do {
            let released = try await store.direct.outbox.releaseClaims()
            if released > 0 { logger.notice("mails a stopped process had claimed are sent again", metadata: ["count": "\(released)"]) }
        } catch {
            logger.error("outbox claims not released", metadata: ["error": "\(error)"])
        }
    }
}
