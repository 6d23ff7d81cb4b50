import Foundation

/// A JSON value, for claim sets and attribute maps whose shape is decided at run time.
/// Untrusted text goes through `JSONShape` first. Decoding tries a string first, then a container, then the other
/// scalars: every refused attempt throws an error that builds its coding path, and strings are most of the values
/// (a string used to cost five refusals, which made decoding the OpenAPI document a fifth of start-up).
public enum JSONValue: Codable, Sendable, Equatable {
    case string(String), int(Int), double(Double), bool(Bool), array([JSONValue]), object([String: JSONValue]), null

    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    public init(from decoder: Decoder) throws {
        let single = try? decoder.singleValueContainer()
        if let single, let s = try? single.decode(String.self) {
            self = .string(s)
        } else if let keyed = try? decoder.container(keyedBy: Key.self) {
            var object: [String: JSONValue] = [:]
            for key in keyed.allKeys { object[key.stringValue] = try keyed.decode(JSONValue.self, forKey: key) }
            self = .object(object)
        } else if var unkeyed = try? decoder.unkeyedContainer() {
            var array: [JSONValue] = []
            while !unkeyed.isAtEnd { array.append(try unkeyed.decode(JSONValue.self)) }
            self = .array(array)
        } else {
            let c = try single ?? decoder.singleValueContainer()
            if c.decodeNil() { self = .null }
            else if let b = try? c.decode(Bool.self) { self = .bool(b) }
            else if let i = try? c.decode(Int.self) { self = .int(i) }
            else if let d = try? c.decode(Double.self) { self = .double(d) }
            else { self = .string(try c.decode(String.self)) }
        }
    }

    /// Decodes untrusted JSON text after the linear shape check; nil when too deep, too big or not JSON.
    public static func decodeUntrusted<T: Decodable>(_ type: T.Type, from data: Data, limits: JSONShape.Limits = .request) -> T? {
        guard JSONShape.isWithin(data, limits) else { return nil }
        return try? JSONDecoder().decode(type, from: data)
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .string(let v): try c.encode(v)
        case .int(let v): try c.encode(v)
        case .double(let v): try c.encode(v)
        case .bool(let v): try c.encode(v)
        case .array(let v): try c.encode(v)
        case .object(let v): try c.encode(v)
        case .null: try c.encodeNil()
        }
    }

    public var stringValue: String? { if case .string(let s) = self { return s }; return nil }
    public var objectValue: [String: JSONValue]? { if case .object(let o) = self { return o }; return nil }
    public var intValue: Int? { if case .int(let i) = self { return i }; return nil }
    public var arrayValue: [JSONValue]? { if case .array(let a) = self { return a }; return nil }
    /// Any JSON number.
    public var doubleValue: Double? {
        switch self {
        case .int(let i): Double(i)
        case .double(let d): d
        default: nil
        }
    }
}

extension JSONValue: ExpressibleByStringLiteral {
    public init(stringLiteral value: String) { self = .string(value) }
}
