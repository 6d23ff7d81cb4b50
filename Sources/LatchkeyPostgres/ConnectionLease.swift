import LatchkeyCore
import PostgresNIO
import Synchronization

/// A pooled connection, or an error when none comes within `timeout`: while the database is unreachable the pool
/// keeps trying to connect, and a request should fail in seconds rather than wait for it. Only the wait is timed:
/// once the body has a connection it runs to the end (a commit is never reported as a failure), and a body that
/// gets its connection after the timeout fired does nothing.
struct ConnectionLease {
    struct Unavailable: Error, CustomStringConvertible {
        let description = "no database connection within the lease timeout (is PostgreSQL reachable?)"
    }

    private enum Phase { case waiting, started, timedOut }

    /// Moves from `waiting` to `to` once; false when another move came first.
    private final class Race: Sendable {
        private let phase = Mutex(Phase.waiting)
        func leave(to next: Phase) -> Bool {
            phase.withLock { phase in
                guard phase == .waiting else { return false }
                phase = next
                return true
            }
        }
    }

    static let timeout: Duration = .seconds(5)

    static func with<T: Sendable>(_ client: PostgresClient, timeout: Duration = Self.timeout,
                                  _ body: @escaping @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        let race = Race()
        return try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask {
                try await client.withConnection { connection in
                    guard race.leave(to: .started) else { throw Unavailable() }
                    return try await body(connection)
                }
            }
            group.addTask {
                try await Task.sleep(for: timeout)
                if race.leave(to: .timedOut) { throw Unavailable() }
                return nil  // the body has its connection: wait for it
            }
            while let next = try await group.next() {
                if let value = next {
                    group.cancelAll()
                    return value
                }
            }
            throw Unavailable()  // unreachable: the body's task always yields a value or throws
        }
    }
}
