import Foundation
import LatchkeyCore
import NIOCore
import NIOExtras
import NIOPosix
import NIOSSL

/// One SMTP connection on SwiftNIO: greeting, EHLO, STARTTLS or implicit TLS, AUTH PLAIN/LOGIN, then any
/// number of messages over the same connection, then QUIT.
struct SMTPSession {
    let settings: SMTPSettings
    let from: MailAddress

    /// Sends `messages` in order over one connection; one result per message.
    func send(_ messages: [MailMessage]) async -> [DeliveryResult] {
        do {
            return try await withDeadline(seconds: settings.timeoutSeconds * max(1, messages.count)) {
                try await self.run(messages)
            }
        } catch {
            let why = (error as? SMTPFailure)?.description ?? "connection failed: \(error)"
            return messages.map { _ in .temporaryFailure(why) }
        }
    }

    private func run(_ messages: [MailMessage]) async throws -> [DeliveryResult] {
        let tls = try makeTLSContext()
        let implicitTLS = settings.security == .tls
        // SNI and hostname checks need a name: an IP literal relay is verified against its certificate's IP entries.
        let host: String? = IPLiteral.isIP(settings.host) ? nil : settings.host
        let tlsSwitch = SMTPReplyDecoder.TLSSwitch()
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(.seconds(Int64(settings.timeoutSeconds)))
            .connect(host: settings.host, port: settings.port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    if implicitTLS, let tls {
                        try channel.pipeline.syncOperations.addHandler(try NIOSSLClientHandler(context: tls, serverHostname: host))
                    }
                    try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(SMTPReplyDecoder(tlsSwitch: tlsSwitch)))
                    return try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
        return try await channel.executeThenClose { inbound, outbound in
            var lines = inbound.makeAsyncIterator()
            func reply() async throws -> SMTPReply {
                var collected: [String] = []
                while let buffer = try await lines.next() {
                    let line = String(buffer: buffer).trimmingCharacters(in: CharacterSet(charactersIn: "\r"))
                    guard line.count >= 3, let code = Int(line.prefix(3)) else { throw SMTPFailure.connection("malformed reply: \(line.prefix(80))") }
                    collected.append(String(line.dropFirst(4)))
                    if line.count == 3 || line[line.index(line.startIndex, offsetBy: 3)] == " " {
                        return SMTPReply(code: code, lines: collected)
                    }
                }
                throw SMTPFailure.connection("connection closed by the server")
            }
            func command(_ text: String) async throws -> SMTPReply {
                try await outbound.write(ByteBuffer(string: text + "\r\n"))
                return try await reply()
            }
            func expect(_ r: SMTPReply, _ step: String) throws {
                guard r.isPositive else { throw SMTPFailure.connection("\(step) refused: \(r)") }
            }

            try expect(try await reply(), "greeting")
            var ehlo = try await command("EHLO \(settings.heloName)")
            try expect(ehlo, "EHLO")
            if settings.security == .starttls {
                guard ehlo.lines.contains(where: { $0.uppercased().hasPrefix("STARTTLS") }) else {
                    throw SMTPFailure.connection("the server does not offer STARTTLS (mail.smtp.tls: starttls)")
                }
                tlsSwitch.set(.awaitingReply)
                try expect(try await command("STARTTLS"), "STARTTLS")
                guard let tls else { throw SMTPFailure.connection("no TLS context") }
                try await channel.channel.eventLoop.submit {
                    // On the event loop: no read can slip in between the check and the handler.
                    guard tlsSwitch.current == .switching else { throw SMTPFailure.connection("STARTTLS reply out of order") }
                    try channel.channel.pipeline.syncOperations.addHandler(try NIOSSLClientHandler(context: tls, serverHostname: host),
                                                                           position: .first)
                    tlsSwitch.set(.secured)
                }.get()
                ehlo = try await command("EHLO \(settings.heloName)")  // capabilities are new after TLS
                try expect(ehlo, "EHLO after STARTTLS")
            }
            if let user = settings.username, !user.isEmpty {
                try await authenticate(user: user, password: settings.password ?? "", capabilities: ehlo.lines, command: command)
            }
            var results: [DeliveryResult] = []
            for message in messages {
                results.append(try await transaction(message, command: command, write: { try await outbound.write(ByteBuffer(string: $0)) },
                                                     reply: reply))
            }
            _ = try? await command("QUIT")
            return results
        }
    }

    private func authenticate(user: String, password: String, capabilities: [String],
                              command: (String) async throws -> SMTPReply) async throws {
        let mechanisms = capabilities.first { $0.uppercased().hasPrefix("AUTH") }?.uppercased().split(separator: " ").dropFirst() ?? []
        let result: SMTPReply
        if mechanisms.contains("PLAIN") || !mechanisms.contains("LOGIN") {
            let token = Data(([0] + Array(user.utf8) + [0] + Array(password.utf8))).base64EncodedString()
            result = try await command("AUTH PLAIN \(token)")
        } else {
            let first = try await command("AUTH LOGIN")
            guard first.code == 334 else { throw SMTPFailure.connection("AUTH LOGIN refused: \(first)") }
            let second = try await command(Data(user.utf8).base64EncodedString())
            guard second.code == 334 else { throw SMTPFailure.connection("AUTH LOGIN refused: \(second)") }
            result = try await command(Data(password.utf8).base64EncodedString())
        }
        // Wrong credentials are a configuration problem: retried with backoff, so fixing the config recovers.
        guard result.code == 235 else { throw SMTPFailure.connection("authentication failed: \(result)") }
    }

    /// One message: MAIL FROM, RCPT TO, DATA. A 5xx refuses this message for good; a 4xx asks to retry.
    private func transaction(_ message: MailMessage, command: (String) async throws -> SMTPReply,
                             write: (String) async throws -> Void, reply: () async throws -> SMTPReply) async throws -> DeliveryResult {
        func refused(_ r: SMTPReply) async throws -> DeliveryResult {
            _ = try await command("RSET")
            return r.isPermanentFailure ? .permanentFailure(r.description) : .temporaryFailure(r.description)
        }
        let mail = try await command("MAIL FROM:<\(from.address)>")
        guard mail.isPositive else { return try await refused(mail) }
        let rcpt = try await command("RCPT TO:<\(message.to)>")
        guard rcpt.isPositive else { return try await refused(rcpt) }
        let data = try await command("DATA")
        guard data.code == 354 else { return try await refused(data) }
        try await write(MIMEMessage.dotStuffed(MIMEMessage(from: from, message: message).render()))
        let done = try await reply()
        guard done.isPositive else {
            return done.isPermanentFailure ? .permanentFailure(done.description) : .temporaryFailure(done.description)
        }
        return .sent
    }

    private func makeTLSContext() throws -> NIOSSLContext? {
        guard settings.security != .none else { return nil }
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.minimumTLSVersion = .tlsv12  // TLS 1.0 and 1.1 are broken and deprecated (RFC 8996)
        if !settings.verifyCertificate { configuration.certificateVerification = .none }
        if let caFile = settings.caFile {
            configuration.additionalTrustRoots = [.file(caFile)]
        }
        return try NIOSSLContext(configuration: configuration)
    }
}

/// Runs `body`, failing with a connection error when it takes longer than `seconds`.
func withDeadline<T: Sendable>(seconds: Int, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
    try await withThrowingTaskGroup(of: T.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(for: .seconds(seconds))
            throw SMTPFailure.connection("timed out after \(seconds) s")
        }
        let first = try await group.next()!
        group.cancelAll()
        return first
    }
}

enum IPLiteral {
    static func isIP(_ host: String) -> Bool {
        (try? SocketAddress(ipAddress: host, port: 0)) != nil
    }
}
