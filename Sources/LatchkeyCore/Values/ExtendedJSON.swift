import Foundation

/// MongoDB Extended JSON, as realm-core writes a `custom-function` payload (canonical mode): `{"$numberInt": "5"}`,
/// `{"$numberLong": "5"}`, `{"$numberDouble": "1.5"}`, `{"$oid": "…"}`, `{"$date": {"$numberLong": "…"}}`. Read
/// into plain JSON (numbers, the ObjectId's hex, the date as ISO 8601) before an operator's function sees it.
public enum ExtendedJSON {
    public static func plain(_ value: JSONValue) -> JSONValue {
        switch value {
        case .array(let items): return .array(items.map(plain))
        case .object(let fields):
            if fields.count == 1, let (key, inner) = fields.first, let converted = wrapper(key, inner) { return converted }
            return .object(fields.mapValues(plain))
        default: return value
        }
    }

    private static func wrapper(_ key: String, _ inner: JSONValue) -> JSONValue? {
        switch (key, inner) {
        case ("$numberInt", .string(let text)), ("$numberLong", .string(let text)): return Int(text).map(JSONValue.int)
        case ("$numberDouble", .string(let text)): return Double(text).map(JSONValue.double)
        case ("$oid", .string(let hex)): return .string(hex)
        case ("$date", let date):
            guard case .int(let millis) = plain(date) else { return nil }
            // Whole seconds through the formatter, milliseconds by integer arithmetic: a Double would round them.
            let (seconds, rest) = millis.quotientAndRemainder(dividingBy: 1000)
            let (whole, ms) = rest < 0 ? (seconds - 1, rest + 1000) : (seconds, rest)
            let text = Date(timeIntervalSince1970: Double(whole)).ISO8601Format()
            return .string(String(text.dropLast()) + "." + String(format: "%03d", ms) + "Z")
        default: return nil
        }
    }
}
