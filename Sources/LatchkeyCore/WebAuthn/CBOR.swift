import Foundation

/// A CBOR value (RFC 8949), as much as WebAuthn needs: attestation objects and COSE keys. Decoded by `CBORReader`.
public indirect enum CBOR: Sendable, Equatable {
    case unsigned(UInt64)
    /// A negative integer, stored as its CBOR argument: the value is -1 - argument.
    case negative(UInt64)
    case bytes([UInt8])
    case text(String)
    case array([CBOR])
    case map([CBOREntry])
    case simple(UInt8)
    case bool(Bool)
    case null
    case undefined
    case float(Double)

    /// The value as a signed integer, when it is one that fits.
    public var int: Int64? {
        switch self {
        case .unsigned(let value): value <= UInt64(Int64.max) ? Int64(value) : nil
        case .negative(let argument): argument <= UInt64(Int64.max) ? -1 - Int64(argument) : nil
        default: nil
        }
    }

    public var byteString: [UInt8]? { if case .bytes(let bytes) = self { bytes } else { nil } }
    public var textString: String? { if case .text(let text) = self { text } else { nil } }

    /// The value under `key` in a map (the first, if a map repeats a key: `CBORReader` refuses that anyway).
    public subscript(key: CBOR) -> CBOR? {
        guard case .map(let entries) = self else { return nil }
        return entries.first { $0.key == key }?.value
    }
    public subscript(key: Int64) -> CBOR? { self[key >= 0 ? .unsigned(UInt64(key)) : .negative(UInt64(-1 - key))] }
    public subscript(key: String) -> CBOR? { self[.text(key)] }
}

/// One key and value of a CBOR map, in the order they came.
public struct CBOREntry: Sendable, Equatable {
    public var key: CBOR
    public var value: CBOR
}
