import Foundation

/// Test mode's record of every code and link sent (`GET /testing/v1/codes`), as data: what the mails and text
/// messages carry, so a test reads a code without parsing a mail. Kept in memory, newest last, bounded; never in
/// any other mode (the composer and the text sender only record when one is handed to them).
public final class CapturedProofs: @unchecked Sendable {
    public struct Entry: Sendable, Equatable {
        public var purpose: String
        public var channel: String
        public var to: String
        public var code: String?
        public var link: String?
        public var token: String?
        public var tokenId: String?
        /// The dialect and the client or app whose request sent it, when known.
        public var dialect: String?
        public var clientId: String?
        public var sentAt: Date
        public var expiresAt: Date
        public var used: Bool
        /// Its place in the order of sending (1 the first since start), the cursor of a page.
        public var sequence = 0
    }

    private let lock = NSLock()
    private var entries: [Entry] = []
    private var sent = 0
    private let capacity = 10_000
    public init() {}

    func record(_ entry: Entry) {
        lock.withLock {
            sent += 1
            var entry = entry
            entry.sequence = sent
            entries.append(entry)
            if entries.count > capacity { entries.removeFirst(entries.count - capacity) }
        }
    }

    /// What was sent to `to` (an address, compared normalized, or a phone number), newest first.
    public func entries(to: String) -> [Entry] { page(to: to, before: nil, limit: .max).entries }

    /// Up to `limit` entries, newest first, sent before the entry numbered `before` (nil: from the newest), to `to`
    /// (nil: to anyone); `next` is the cursor of the following page, nil at the oldest.
    public func page(to: String?, before: Int?, limit: Int) -> (entries: [Entry], next: Int?) {
        let wanted = to.map { EmailAddress.normalize($0) ?? $0 }
        return lock.withLock {
            var found: [Entry] = []
            for entry in entries.reversed() where entry.sequence < (before ?? .max) && (to == nil || entry.to == wanted || entry.to == to) {
                if found.count == limit { return (found, found.last?.sequence) }
                found.append(entry)
            }
            return (found, nil)
        }
    }

    public func clear() { lock.withLock { entries.removeAll() } }

    /// A code taken: its entries to `to` read `used`.
    func codeUsed(_ code: String, to: String?) {
        lock.withLock { for index in entries.indices where entries[index].code == code && (to == nil || entries[index].to == to) { entries[index].used = true } }
    }

    func linkUsed(tokenId: String) {
        lock.withLock { for index in entries.indices where entries[index].tokenId == tokenId { entries[index].used = true } }
    }

    /// The purpose a mail kind serves, as `/testing/v1/codes` names it.
    static func purpose(_ kind: MailKind) -> String? {
        switch kind {
        case .signUpCode: "sign_up"
        case .signInCode: "sign_in"
        case .secondFactorCode: "second_factor"
        case .resetCode, .resetLink: "reset"
        case .confirmationLink: "confirmation"
        case .addressChangeCode: "address_change"
        default: nil
        }
    }

    func mailed(_ kind: MailKind, to: String, code: String?, link: String?, validMinutes: Int, origin: MailOrigin?, at now: Date) {
        guard let purpose = Self.purpose(kind), code != nil || link != nil else { return }
        let query = link.flatMap { URLComponents(string: $0)?.queryItems } ?? []
        record(Entry(purpose: purpose, channel: "email", to: to, code: code, link: link, token: query.first { $0.name == "token" }?.value,
                     tokenId: query.first { $0.name == "tokenId" }?.value, dialect: origin?.dialect, clientId: origin?.clientId, sentAt: now,
                     expiresAt: now + Double(validMinutes * 60), used: false))
    }
}

/// Test mode's text messages: captured as codes, never sent. Stands in for `mfa.sms.function` when none is set.
public struct CapturingTextSender: OperatorFunction {
    public let capture: CapturedProofs
    public let time: any TimeSource
    public init(capture: CapturedProofs, time: any TimeSource) { self.capture = capture; self.time = time }

    public func invoke(_ input: JSONValue) async -> FunctionReply {
        guard case .array(let arguments) = input, case .object(let message)? = arguments.first, let to = message["to"]?.stringValue,
              let code = message["code"]?.stringValue else { return .failed("not a text message") }
        let now = time.now(), minutes = message["valid_minutes"]?.intValue ?? 30
        // Text messages carry second-factor codes (a sign-in's, or a number's being added).
        capture.record(.init(purpose: "second_factor", channel: "sms", to: to, code: code, link: nil, token: nil, tokenId: nil, dialect: nil,
                             clientId: nil, sentAt: now,
                             expiresAt: now + Double(minutes * 60), used: false))
        return .answered(Data(#"{"status":"success"}"#.utf8))
    }
}

/// Who a mailed code or link was sent for (test mode records it with the code).
public struct MailOrigin: Sendable, Equatable {
    public var dialect: String
    public var clientId: String?
    public init(dialect: String, clientId: String?) { self.dialect = dialect; self.clientId = clientId }

    /// A journey's flow: its client, and the dialect that drives it.
    static func flow(_ flow: FlowRecord) -> MailOrigin {
        let client = flow.state.client
        if client.id.hasPrefix("parse:") { return MailOrigin(dialect: "parse", clientId: String(client.id.dropFirst("parse:".count))) }
        return MailOrigin(dialect: client.audience == .browser ? "openid" : "native", clientId: client.id)
    }
}
