/// The code a device shows and a person types at `/ui/device` (RFC 8628 §6.1): eight letters from twenty consonants
/// (about 34.5 bits; no vowels, so no words, and nothing to confuse with a digit), shown as `BCDF-GHJK`. Typed in any
/// case, with or without the dash or spaces.
public enum UserCode {
    static let alphabet = Array("BCDFGHJKLMNPQRSTVWXZ")
    static let length = 8

    static func make() -> String {
        String((0..<length).map { _ in alphabet[Int(SecureRandom.uniform(UInt32(alphabet.count)))] })
    }

    /// The code as stored (eight capitals), or nil when `typed` cannot be one.
    static func normalize(_ typed: String?) -> String? {
        guard let typed, typed.utf8.count <= 64 else { return nil }
        let letters = typed.uppercased().filter { $0 != "-" && $0 != " " }
        guard letters.count == length, letters.allSatisfy(alphabet.contains) else { return nil }
        return letters
    }

    public static func display(_ code: String) -> String { "\(code.prefix(4))-\(code.dropFirst(4))" }
}
