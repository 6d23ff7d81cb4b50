/// How the background purge takes turns with requests at the writer. Each batch is sized to hold it about `target`
/// (at 10 million rows a delete touches several uncached index pages, and a fixed 500 rows held the writer, and every
/// refresh queued behind it, for over 100 ms). After each batch it pauses: nine times what the batch took while the
/// store is quiet (a tenth of the writer), 49 times while requests use it (a fiftieth), told apart by the reads and
/// writes others ran since the last batch (the outbox's poll alone is ten a second, a loaded server's thousands).
/// With 6.5 million expired token rows to drain under a refresh load, the refresh ran at 0.78-0.80 of its rate on an
/// empty database at a tenth, at 0.88-1.03 at a fiftieth (bench/flat.py). A backlog drains slower while the server is
/// busy, and at its full pace again when it is quiet.
struct PurgePace {
    /// How long one purge write should hold the writer: a request queued behind it waits at most about this long.
    static let target = Duration.milliseconds(10)
    /// Rows of each table one purge write removes at most: where a batch starts, and the bounds it adapts within.
    static let batch = (first: 500, least: 16, most: 4000)
    /// The pause after a batch, as a multiple of what the batch took.
    static let pauseRatio = (quiet: 9, busy: 49)
    static let shortestPause = Duration.milliseconds(20)
    /// Other reads and writes a second from which the store counts as serving requests (about fifty requests a second).
    static let busyCallsPerSecond = 100.0

    private(set) var limit = Self.batch.first

    /// After a batch that took `took`: the next batch's size (`limit`), and the pause before it. `others`: the
    /// reads and writes others ran on the store over `window`, since the previous batch ended.
    mutating func next(took: Duration, others: UInt64, over window: Duration) -> Duration {
        let seconds = max(Double(window.components.seconds) + Double(window.components.attoseconds) * 1e-18, 0.001)
        let busy = Double(others) / seconds >= Self.busyCallsPerSecond
        if took > Self.target {
            limit = max(Self.batch.least, limit / 2)
        } else if took < Self.target / 2 {
            limit = min(Self.batch.most, limit * 2)
        }
        return max(Self.shortestPause, took * (busy ? Self.pauseRatio.busy : Self.pauseRatio.quiet))
    }
}
