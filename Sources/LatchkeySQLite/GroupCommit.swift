import GRDB
import Synchronization

/// Group commit for stand-alone writes: the writes that arrive while one commit is under way share the next
/// one. One write's failure (a taken email, a lost race) undoes only that write: a batch runs its writes one after
/// the other, and if one throws, the batch is rolled back and run again with each write in a savepoint of its own
/// (failures are rare, and a savepoint per write was a statement pair and a copy of each page it changed on every
/// write). Every caller is answered only after the COMMIT that made its write durable returns. With the WAL synced
/// on every commit (`PRAGMA synchronous = FULL`, set in `SQLiteStore.init`), sixteen concurrent refreshes cost one
/// fsync, not sixteen.
final class GroupCommit: Sendable {
    /// One queued write: `run` on the writer connection inside the batch (in a savepoint of its own when
    /// `isolated`; false when it threw), `finish` once the batch is over.
    private struct Job: Sendable {
        let run: @Sendable (Database, _ isolated: Bool) -> Bool
        let finish: @Sendable ((any Error)?) -> Void
    }

    private struct State {
        var pending: [Job] = []
        var draining = false
    }

    private let database: any DatabaseWriter
    private let gate: WriteGate
    private let activity: StoreActivity
    private let state = Mutex(State())

    init(database: any DatabaseWriter, gate: WriteGate, activity: StoreActivity) {
        self.database = database
        self.gate = gate
        self.activity = activity
    }

    func write<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        let outcome = Outcome<T>()
        return try await withCheckedThrowingContinuation { continuation in
            let job = Job(
                run: { db, isolated in
                    let result = Result { isolated ? try Self.inSavepoint(db, body) : try body(db) }
                    outcome.set(result)
                    if case .failure = result { return false }
                    return true
                },
                finish: { batchError in continuation.resume(with: batchError.map { .failure($0) } ?? outcome.get()) })
            let startsDrain = state.withLock { state in
                state.pending.append(job)
                defer { state.draining = true }
                return !state.draining
            }
            if startsDrain { Task { await self.drain() } }
        }
    }

    /// Runs batches until none is waiting. The write gate is taken per batch, so a transaction queued behind
    /// a stream of writes gets its turn between two batches.
    private func drain() async {
        while true {
            let batch = state.withLock { state -> [Job] in
                let batch = state.pending
                state.pending = []
                if batch.isEmpty { state.draining = false }
                return batch
            }
            guard !batch.isEmpty else { return }
            await gate.acquire()
            var batchError: (any Error)?
            do {
                try await database.writeWithoutTransaction { db in
                    try db.cachedStatement(sql: "BEGIN IMMEDIATE").execute()
                    do {
                        if !(try Self.runAll(batch, db, isolated: false)) {
                            // A write threw, perhaps halfway: none of the batch stands, and each runs again alone.
                            try db.cachedStatement(sql: "ROLLBACK").execute()
                            try db.cachedStatement(sql: "BEGIN IMMEDIATE").execute()
                            _ = try Self.runAll(batch, db, isolated: true)
                        }
                        try db.cachedStatement(sql: "COMMIT").execute()
                    } catch {
                        if db.isInsideTransaction { try? db.execute(sql: "ROLLBACK") }
                        throw error
                    }
                }
            } catch {
                batchError = error
            }
            gate.release()
            activity.note(batch.count)
            for job in batch { job.finish(batchError) }
        }
    }

    /// Runs the batch's writes in order; false as soon as one throws (outside savepoints, the rest would build on
    /// its half-done write).
    private static func runAll(_ batch: [Job], _ db: Database, isolated: Bool) throws -> Bool {
        for job in batch {
            let stood = job.run(db, isolated)
            // Some errors (disk full, I/O) end the whole transaction: then no write of the batch stood.
            guard db.isInsideTransaction else { throw DatabaseError(resultCode: .SQLITE_ABORT, message: "batch rolled back") }
            if !stood && !isolated { return false }
        }
        return true
    }

    private static func inSavepoint<T>(_ db: Database, _ body: (Database) throws -> T) throws -> T {
        try db.cachedStatement(sql: "SAVEPOINT write").execute()
        do {
            let result = try body(db)
            try db.cachedStatement(sql: "RELEASE write").execute()
            return result
        } catch {
            if db.isInsideTransaction {
                try? db.execute(sql: "ROLLBACK TO write")
                try? db.execute(sql: "RELEASE write")
            }
            throw error
        }
    }
}

/// One write's result, set on the writer connection and read when its batch has committed.
private final class Outcome<T: Sendable>: Sendable {
    private let result = Mutex<Result<T, any Error>?>(nil)

    func set(_ value: Result<T, any Error>) { result.withLock { $0 = value } }

    func get() -> Result<T, any Error> {
        result.withLock { $0 } ?? .failure(DatabaseError(resultCode: .SQLITE_MISUSE, message: "write never ran"))
    }
}
