import Foundation
import Logging

/// What became of one message handed to a transport.
public enum DeliveryResult: Error, Sendable, Equatable {
    case sent
    /// Worth retrying later: connection refused or lost, timeouts, 4xx replies.
    case temporaryFailure(String)
    /// Refused for good (5xx): marked failed with the reply, not retried.
    case permanentFailure(String)
}

/// How a mail leaves the server: `log`, `file`, or SMTP (LatchkeySMTP).
public protocol MailTransport: Sendable {
    func deliver(_ message: MailMessage) async throws
    /// Delivers several messages at once (SMTP reuses one connection); one result per message, in order.
    func deliver(batch: [MailMessage]) async -> [DeliveryResult]
}

extension MailTransport {
    public func deliver(batch: [MailMessage]) async -> [DeliveryResult] {
        var results: [DeliveryResult] = []
        for message in batch {
            do { try await deliver(message); results.append(.sent) } catch let result as DeliveryResult {
                results.append(result)
            } catch {
                results.append(.temporaryFailure(String(describing: error)))
            }
        }
        return results
    }
}

/// Development default: the whole mail, code included, goes to the log.
public struct LogMailTransport: MailTransport {
    let logger: Logger
    public init(logger: Logger) { self.logger = logger }
    public func deliver(_ message: MailMessage) async throws {
        logger.notice("mail to \(message.to): \(message.subject)\n\(message.text)")
    }
}

/// One JSON object per line: {"to","subject","text","html","created_at"}, for test rigs and local tools.
public final class FileMailTransport: MailTransport, @unchecked Sendable {
    private let path: String
    private let lock = NSLock()

    public init(path: String) throws {
        self.path = path
        let dir = (path as NSString).deletingLastPathComponent
        if !dir.isEmpty { try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true) }
        if !FileManager.default.fileExists(atPath: path) {
            guard FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600]) else {
                throw CocoaError(.fileWriteNoPermission)
            }
        }
    }

    public func deliver(_ message: MailMessage) async throws {
        struct Line: Encodable { var to, subject, text, html, created_at: String }
        let formatter = ISO8601DateFormatter()
        var data = try JSONEncoder().encode(Line(to: message.to, subject: message.subject, text: message.text,
                                                 html: message.html, created_at: formatter.string(from: message.createdAt)))
        data.append(0x0A)
        try lock.withLock {
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
            defer { try? handle.close() }
            try handle.seekToEnd()
            try handle.write(contentsOf: data)
        }
    }
}

/// Keeps delivered mails in memory for `GET /testing/v1/mail` (opt-in, for app developers' test rigs).
public final class TestingMailbox: @unchecked Sendable {
    private let lock = NSLock()
    private var messages: [MailMessage] = []
    private let capacity = 1000
    public init() {}

    public func record(_ message: MailMessage) {
        lock.withLock {
            messages.append(message)
            if messages.count > capacity { messages.removeFirst(messages.count - capacity) }
        }
    }

    /// Forgets every mail (test mode's wipe).
    public func clear() { lock.withLock { messages.removeAll() } }

    public func messages(to address: String) -> [MailMessage] {
        let wanted = EmailAddress.normalize(address) ?? address.lowercased()
        return lock.withLock { messages.filter { $0.to == wanted } }
    }
}
