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

/// What a function's call came to before its answer is read: the answer's bytes, or why there is none.
public enum FunctionReply: Sendable {
    case answered(Data)
    case failed(String)
}

/// An operator-defined function (webhook or command): JSON in, JSON out. Never throws: a timeout or an error is
/// `.failed` with the reason, and it never runs past its timeout. Each caller reads the answer in its own shape.
public protocol OperatorFunction: Sendable {
    func invoke(_ input: JSONValue) async -> FunctionReply
}

extension OperatorFunction {
    /// The engine's own steps: the argument list in, `{"status", "message"?}` out.
    public func call(_ arguments: [JSONValue]) async -> FunctionOutcome {
        switch await invoke(.array(arguments)) {
        case .answered(let data): return FunctionOutcome.parse(data)
        case .failed(let reason): return FunctionOutcome(status: .fail, message: reason)
        }
    }
}

/// What a function that computes a value answered: `{"success": <JSON>}` (with the answer's other members beside
/// it), `{"error": <message or JSON>}`, or neither (a timeout, a crash, nonsense), whose reason is for the log and
/// never for the caller.
public enum FunctionResult: Sendable, Equatable {
    case value(JSONValue, beside: [String: JSONValue])
    case refused(String)
    case failed(String)
}

extension OperatorFunction {
    /// Cloud functions and App Services functions: the request in, the function's value or its error out.
    public func evaluate(_ input: JSONValue) async -> FunctionResult {
        switch await invoke(input) {
        case .answered(let data):
            let answer = JSONValue.decodeUntrusted([String: JSONValue].self, from: data)
            if var answer, let result = answer.removeValue(forKey: "success") { return .value(result, beside: answer) }
            if case .string(let message)? = answer?["error"] { return .refused(message) }
            if let error = answer?["error"], let text = try? String(decoding: JSONEncoder().encode(error), as: UTF8.self) { return .refused(text) }
            return .failed("answer is neither {\"success\": …} nor {\"error\": …}")
        case .failed(let why):
            return .failed(why)
        }
    }
}
