import Foundation

/// Reading the values other systems' exports hold, each in its own shape: times as epoch seconds or milliseconds
/// (as numbers or text), PostgreSQL's `2024-01-15 10:20:30.123456+00`, ISO 8601 with any fraction; booleans as
/// `true`/`"true"`; JSON documents stored as text inside a CSV cell or a JSON string.
enum SourceValues {
    static func string(_ value: JSONValue?) -> String? {
        guard case .string(let text)? = value, !text.isEmpty else { return nil }
        return text
    }

    static func bool(_ value: JSONValue?) -> Bool {
        switch value {
        case .bool(let flag)?: flag
        case .string(let text)?: ["true", "t", "1"].contains(text.lowercased())
        case .int(let number)?: number != 0
        default: false
        }
    }

    /// Seconds or milliseconds since 1970, as a number or as digits.
    static func epoch(_ value: JSONValue?, milliseconds: Bool) -> Date? {
        let number: Double?
        switch value {
        case .int(let whole)?: number = Double(whole)
        case .double(let real)?: number = real
        case .string(let text)?: number = Double(text)
        default: number = nil
        }
        guard let number, number.isFinite, number > 0 else { return nil }
        return Date(timeIntervalSince1970: milliseconds ? number / 1000 : number)
    }

    /// A JSON object, or a JSON object written as text (Firebase's `customAttributes`, a CSV cell of `jsonb`).
    static func object(_ value: JSONValue?) -> [String: JSONValue]? {
        switch value {
        case .object(let map)?: return map
        case .string(let text)?:
            guard text.utf8.count <= 65_536, let data = text.data(using: .utf8), JSONShape.isWithin(data, .init(maxDepth: 16, maxElements: 2_000))
            else { return nil }
            return try? JSONDecoder().decode([String: JSONValue].self, from: data)
        default: return nil
        }
    }

    /// ISO 8601 or PostgreSQL's text form of `timestamptz`: a space or `T`, any fraction, `Z`, `+00`, `+0000` or
    /// `+00:00`; no zone is UTC.
    static func timestamp(_ value: JSONValue?) -> Date? {
        guard let text = string(value) else { return nil }
        let bytes = Array(text.utf8)
        func number(_ range: Range<Int>) -> Int? {
            guard range.upperBound <= bytes.count, bytes[range].allSatisfy({ (48...57).contains($0) }) else { return nil }
            return bytes[range].reduce(0) { $0 * 10 + Int($1 - 48) }
        }
        guard bytes.count >= 19, let year = number(0..<4), bytes[4] == UInt8(ascii: "-"), let month = number(5..<7),
              bytes[7] == UInt8(ascii: "-"), let day = number(8..<10), bytes[10] == UInt8(ascii: " ") || bytes[10] == UInt8(ascii: "T"),
              let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19) else { return nil }
        var index = 19, fraction = 0.0, scale = 0.1
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            while index < bytes.count, (48...57).contains(bytes[index]) {
                fraction += Double(bytes[index] - 48) * scale
                scale /= 10
                index += 1
            }
        }
        var offset = 0
        if index < bytes.count {
            let sign = bytes[index]
            if sign == UInt8(ascii: "Z") {
                index += 1
            } else if sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") {
                let digits = bytes[(index + 1)...].filter { $0 != UInt8(ascii: ":") }
                guard digits.count == 2 || digits.count == 4, digits.allSatisfy({ (48...57).contains($0) }) else { return nil }
                let hours = Int(digits[0] - 48) * 10 + Int(digits[1] - 48)
                let minutes = digits.count == 4 ? Int(digits[2] - 48) * 10 + Int(digits[3] - 48) : 0
                offset = (hours * 3600 + minutes * 60) * (sign == UInt8(ascii: "-") ? -1 : 1)
                index = bytes.count
            }
            guard index == bytes.count else { return nil }
        }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        guard (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61,
              let date = calendar.date(from: DateComponents(year: year, month: month, day: day, hour: hour, minute: minute, second: second))
        else { return nil }
        return date.addingTimeInterval(fraction - Double(offset))
    }

    /// The provider names other systems give the identity providers Latchkey serves under its own names.
    static func provider(_ name: String) -> String {
        switch name {
        case "google.com", "google-oauth2", "oauth2-google": "google"
        case "apple.com", "oauth2-apple": "apple"
        case "anon-user": VerifiedIdentity.anonymousProvider
        default: name
        }
    }
}
