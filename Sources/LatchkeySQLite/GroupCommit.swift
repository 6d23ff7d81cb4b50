import GRDB
import Synchronization

/// Group commit for stand-alone writes: the writes that arrive while one commit is under way share the next
/// one. Each write runs in a savepoint of its own, so one write's failure (a taken email, a lost race) undoes
/// only that write; every caller is answered only after the COMMIT that made its write durable returns. With the
/// WAL synced on every commit (`PRAGMA synchronous = FULL`, set in `SQLiteStore.init`), sixteen concurrent
/// refreshes cost one fsync, not sixteen.
final class GroupCommit: Sendable {
    /// One queued write: `run` on the writer connection inside the batch, `finish` once the batch is over.
    private struct Job: Sendable {
        let run: @Sendable (Database) -> Void
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
                run: { db in outcome.set(Result { try Self.inSavepoint(db, body) }) },
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
                        for job in batch {
                            job.run(db)
                            // Some errors (disk full, I/O) end the whole transaction: then no write of the batch stood.
                            guard db.isInsideTransaction else { throw DatabaseError(resultCode: .SQLITE_ABORT, message: "batch rolled back") }
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
