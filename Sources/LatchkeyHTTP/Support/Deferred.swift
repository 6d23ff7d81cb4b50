import Synchronization

/// A value made the first time it is asked for, then kept: for what start-up need not wait on (the OpenAPI
/// document, decoded in the background once the listeners are set up, or when first needed if that comes first).
final class Deferred<Value: Sendable>: Sendable {
    private let make: @Sendable () -> Value
    private let made = Mutex<Value?>(nil)

    init(_ make: @escaping @Sendable () -> Value) { self.make = make }

    var value: Value {
        made.withLock { made in
            if let made { return made }
            let value = make()
            made = value
            return value
        }
    }
}
