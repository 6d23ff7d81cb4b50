import Foundation

extension LatchkeyEngine {
    /// Deletes what has outlived its use: flows and codes a day after expiry (kept that long to answer
    /// `expired_token`), expired refresh and link tokens, unconfirmed accounts past their link's lifetime, and
    /// delivered mail and audit rows past their retention, shared rate buckets idle for a day (full again by then), and
    /// clients that registered themselves (or came by a metadata document) and hold no session after their time.
    public func purgeExpiredState() async {
        let now = time.now()
        let day = 86400.0
        let cutoffs = PurgeCutoffs(flowsExpiredBefore: now - day, tokensExpiredBefore: now - day,
                                   pendingUsersUpdatedBefore: now - Double(settings.linkTokenTTLSeconds),
                                   anonymousUsersIdleBefore: now - Double(settings.identities.anonymousIdleDays) * day,
                                   sentMailBefore: now - Double(settings.sentMailRetentionDays) * day,
                                   auditBefore: now - Double(settings.auditRetentionDays) * day,
                                   rateBucketsIdleBefore: now - day,
                                   unusedClientsCreatedBefore: now - Double(settings.openID.registration.unusedDays) * day)
        // In bounded batches with a pause between them (`PurgePace`): a backlog of millions of expired tokens (a first
        // start after a long time, an import) drains in the background while requests take turns with it at the writer.
        var removed = 0
        var pace = PurgePace()
        var calls = store.callsSoFar
        let clock = ContinuousClock()
        var lastEnded = clock.now
        do {
            while true {
                let started = clock.now
                let batch = try await store.direct.maintenance.purge(cutoffs, limit: pace.limit)
                removed += batch
                if batch == 0 || Task.isCancelled { break }
                let ended = clock.now
                // The reads and writes other than this batch since the last one ended.
                let callsNow = store.callsSoFar
                let others = if let callsNow, let calls, callsNow > calls + 1 { callsNow - calls - 1 } else { UInt64(0) }
                let pause = pace.next(took: ended - started, others: others, over: ended - lastEnded)
                (calls, lastEnded) = (callsNow, ended)
                try? await Task.sleep(for: pause)
            }
            if removed > 0 { logger.debug("purged \(removed) expired rows") }
        } catch {
            logger.error("purge failed after \(removed) rows: \(String(describing: error))")
        }
    }
}
