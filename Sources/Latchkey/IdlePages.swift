import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Logging
import ServiceLifecycle

/// Gives back what a burst of requests left resident once the server has gone quiet: the free pages inside the
/// allocator's arenas and the clean pages of the binary the requests touched (`StartupPages.release`, as after
/// start). Quiet is read from the process's own CPU time, so no request pays for the bookkeeping: a check every
/// `interval` that finds less than `quietShare` of a core used since the last one, after a busy spell of at least
/// `busySeconds` of CPU since the last release. Pages a later request needs fault back in from the page cache.
struct IdlePages: Service {
    let logger: Logger
    var interval: Duration = .seconds(5)
    /// An idle server still polls its mail outbox and sweeps (about 1 % of a core); a load, even a light one, leaves a
    /// release a second of CPU apart from the next.
    var quietShare = 0.05
    var busySeconds = 1.0

    func run() async throws {
        // The sleep ends at shutdown (cancelled), so stopping never waits for a check.
        try? await cancelWhenGracefulShutdown {
            // The first quiet check after start counts as after a busy spell: what the first requests and the
            // services' start touched after start-up's own release goes too.
            var last = Self.cpuSeconds(), sinceRelease = busySeconds
            let seconds = Double(interval.components.seconds) + Double(interval.components.attoseconds) / 1e18
            while true {
                try await Task.sleep(for: interval)
                let now = Self.cpuSeconds(), spent = now - last
                last = now
                sinceRelease += spent
                guard spent < quietShare * seconds, sinceRelease >= busySeconds else { continue }
                StartupPages.release(logger: logger, after: "a busy spell")
                sinceRelease = 0
                last = Self.cpuSeconds()  // the release's own CPU is not the next spell's
            }
        }
    }

    /// User and system CPU time of the whole process, in seconds.
    static func cpuSeconds() -> Double {
        var usage = rusage()
        #if os(Linux)
        getrusage(RUSAGE_SELF.rawValue, &usage)
        #else
        getrusage(RUSAGE_SELF, &usage)
        #endif
        func seconds(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }
}
