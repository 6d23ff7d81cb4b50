import Foundation

/// The engine's clock. Injected so tests can expire codes and tokens without sleeping.
public protocol TimeSource: Sendable {
    func now() -> Date
}

public struct SystemTime: TimeSource {
    public init() {}
    public func now() -> Date { Date() }
}

/// A clock that only moves when told to; for tests.
public final class ManualTime: TimeSource, @unchecked Sendable {
    private let lock = NSLock()
    private var current: Date
    public init(_ start: Date = Date(timeIntervalSince1970: 1_800_000_000)) { current = start }
    public func now() -> Date { lock.withLock { current } }
    public func advance(seconds: Double) { lock.withLock { current += seconds } }
}

/// Real time plus an offset that only grows until it is reset: test mode's clock, which an app team's tests move
/// forward (`POST /testing/v1/clock`) so codes, tokens and lockouts expire as they would, without waiting.
public final class AdjustableTime: TimeSource, @unchecked Sendable {
    private let lock = NSLock()
    private var offset: Double = 0
    public init() {}
    public func now() -> Date { Date() + lock.withLock { offset } }
    public var offsetSeconds: Double { lock.withLock { offset } }
    /// Moves the clock forward by `seconds` (never back: what expired stays expired).
    public func advance(seconds: Double) { lock.withLock { offset += max(0, seconds) } }
    /// Back to real time.
    public func reset() { lock.withLock { offset = 0 } }
}
