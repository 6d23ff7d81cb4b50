import LatchkeyCore
import Logging
import ServiceLifecycle

/// Delivers the outbox and sweeps expired flows and codes, until graceful shutdown.
struct BackgroundWorker: Service {
    let engine: LatchkeyEngine
    let transport: any MailTransport
    let mailbox: TestingMailbox?
    let policy: OutboxPolicy
    let logger: Logger

    func run() async throws {
        // The first sweep comes ten seconds after start, then every five minutes: a backlog is not left for later.
        var lastPurge = ContinuousClock.now - .seconds(290)
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            let delivered = await engine.deliverPendingMail(via: transport, mailbox: mailbox, policy: policy)
            if ContinuousClock.now - lastPurge > .seconds(300) {
                await engine.purgeExpiredState()
                engine.pruneRateLimits()
                lastPurge = .now
            }
            if delivered < 0 { try? await Task.sleep(for: .seconds(5)) }  // the store failed: back off
            else if delivered == 0 { try? await Task.sleep(for: .milliseconds(100)) }
        }
        // Finish what is due at shutdown so an accepted mail is not left waiting for the next start.
        _ = await engine.deliverPendingMail(via: transport, mailbox: mailbox, policy: policy)
    }
}
