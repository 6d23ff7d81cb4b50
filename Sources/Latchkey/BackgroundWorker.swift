import LatchkeyCore
import Logging
import ServiceLifecycle

/// Delivers the outbox and sweeps expired state, until graceful shutdown. The two run side by side: a sweep that
/// drains millions of expired rows in batches takes minutes, and mail must not wait for it.
struct BackgroundWorker: Service {
    let engine: LatchkeyEngine
    let transport: any MailTransport
    let mailbox: TestingMailbox?
    let policy: OutboxPolicy
    let logger: Logger
    /// True when no other process sends from this store (SQLite): claims found at start are a dead process's.
    var releaseClaimsAtStart = false

    func run() async throws {
        if releaseClaimsAtStart { await engine.releaseMailClaims() }
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await deliverMail() }
            group.addTask { await sweep() }
            group.addTask { await watch() }
        }
    }

    private func deliverMail() async {
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            let delivered = await engine.deliverPendingMail(via: transport, mailbox: mailbox, policy: policy)
            if delivered < 0 { try? await Task.sleep(for: .seconds(5)) }  // the store failed: back off
            else if delivered == 0 { try? await Task.sleep(for: .milliseconds(100)) }
        }
        // Finish what is due at shutdown so an accepted mail is not left waiting for the next start.
        _ = await engine.deliverPendingMail(via: transport, mailbox: mailbox, policy: policy)
    }

    /// Every ten seconds: picks up a signing key rotated on another replica (and drops keys whose tokens have all
    /// expired) and clients made or changed on another, and refreshes the outbox gauges.
    private func watch() async {
        let engine = self.engine
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            do {
                if try await engine.reloadSigningKeys() { logger.notice("signing keys reloaded", metadata: ["kid": "\(engine.keyRing.current.kid)"]) }
            } catch {
                logger.warning("cannot reload signing keys", metadata: ["error": "\(error)"])
            }
            do { try await engine.reloadClients() } catch {
                logger.warning("cannot reload clients", metadata: ["error": "\(error)"])
            }
            await engine.refreshOutboxGauges()
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: .seconds(10)) }
        }
    }

    /// The first sweep comes ten seconds after start, then one every five minutes after the last ended.
    private func sweep() async {
        var wait = Duration.seconds(10)
        // Shutdown cancels the wait and a sweep under way (it stops between two batches, each committed or not).
        let engine = self.engine
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            try? await cancelWhenGracefulShutdown { [wait] in try await Task.sleep(for: wait) }
            if Task.isShuttingDownGracefully || Task.isCancelled { return }
            await cancelWhenGracefulShutdown { await engine.purgeExpiredState() }
            engine.pruneRateLimits()
            wait = .seconds(300)
        }
    }
}
