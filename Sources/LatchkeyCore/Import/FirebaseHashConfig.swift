import Foundation

/// A Firebase project's password hash parameters, as the console shows them (Authentication → Users → ⋮ → Password
/// hash parameters): either the JSON form or the console's `hash_config { key: value, … }` text.
public struct FirebaseHashConfig: Sendable, Equatable {
    public var signerKey: String
    public var saltSeparator: String
    public var rounds: Int
    public var memCost: Int

    /// Nil, with the reason, when the text is neither form or a parameter is missing, not base64, or out of range.
    public static func parse(_ text: String) -> Result<FirebaseHashConfig, ImportLineError> {
        var values: [String: String] = [:]
        if let data = text.data(using: .utf8), let object = try? JSONDecoder().decode([String: JSONValue].self, from: data) {
            let inner = object["hash_config"]?.objectValue ?? object
            for (key, value) in inner {
                switch value {
                case .string(let text): values[key] = text
                case .int(let number): values[key] = String(number)
                default: break
                }
            }
        } else {
            for line in text.split(whereSeparator: \.isNewline) {
                let parts = line.split(separator: ":", maxSplits: 1)
                guard parts.count == 2 else { continue }
                let value = parts[1].trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: ",\""))
                values[parts[0].trimmingCharacters(in: .whitespaces)] = value
            }
        }
        func refused(_ reason: String) -> Result<FirebaseHashConfig, ImportLineError> { .failure(ImportLineError(line: 0, reason: reason)) }
        if let algorithm = values["algorithm"], algorithm.uppercased() != "SCRYPT" {
            return refused("algorithm is \(algorithm); Firebase's own projects use SCRYPT, the only one read here")
        }
        guard let signer = values["base64_signer_key"], Data(base64Encoded: signer) != nil else {
            return refused("base64_signer_key is missing or not base64")
        }
        guard let separator = values["base64_salt_separator"], Data(base64Encoded: separator) != nil else {
            return refused("base64_salt_separator is missing or not base64")
        }
        guard let rounds = values["rounds"].flatMap(Int.init), (1...8).contains(rounds) else { return refused("rounds must be 1 to 8") }
        guard let memCost = values["mem_cost"].flatMap(Int.init), (1...14).contains(memCost) else { return refused("mem_cost must be 1 to 14") }
        return .success(FirebaseHashConfig(signerKey: signer, saltSeparator: separator, rounds: rounds, memCost: memCost))
    }
}
