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
