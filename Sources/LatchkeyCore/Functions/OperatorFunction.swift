import Foundation

/// What an operator's function answered: `{"status": "success" | "pending" | "fail", "message"?}`.
public struct FunctionOutcome: Sendable, Equatable {
    public enum Status: String, Sendable { case success, pending, fail }
    public var status: Status
    public var message: String?
    public init(status: Status, message: String? = nil) { self.status = status; self.message = message }

    /// Parses a function's JSON answer; anything else is a `fail` carrying the reason.
    public static func parse(_ data: Data) -> FunctionOutcome {
        guard let object = JSONValue.decodeUntrusted([String: JSONValue].self, from: data),
              let raw = object["status"]?.stringValue, let status = Status(rawValue: raw) else {
            return FunctionOutcome(status: .fail, message: "answer is not {\"status\": \"success\"|\"pending\"|\"fail\"}")
        }
        return FunctionOutcome(status: status, message: object["message"]?.stringValue)
    }
}

/// An operator-defined function (webhook or command). Never throws: a timeout, an error or nonsense is a
/// `fail` with the reason, and it never runs past its timeout.
public protocol OperatorFunction: Sendable {
    func call(_ arguments: [JSONValue]) async -> FunctionOutcome
}
