import Crypto

/// An HMAC-SHA256 key whose inner and outer pads are computed once: a request makes several MACs under the same few
/// keys (a token's stored hash, the visit's binding, a CSRF token), and the key's set-up was most of each one.
public struct MACKey: Sendable {
    private let keyed: HMAC<SHA256>

    public init(_ key: [UInt8]) { keyed = HMAC(key: SymmetricKey(data: key)) }

    public func mac(_ data: [UInt8]) -> [UInt8] {
        var copy = keyed  // copy on write: the keyed state is copied, never changed
        copy.update(data: data)
        return Array(copy.finalize())
    }
}
