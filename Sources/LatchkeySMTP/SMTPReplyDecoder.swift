import NIOConcurrencyHelpers
import NIOCore

/// Splits the relay's bytes into reply lines, with two guards LineBasedFrameDecoder lacks:
/// - a line longer than `maxLineLength` is an error, not unbounded buffering;
/// - across STARTTLS nothing may be buffered: plaintext that arrived after the `220` would otherwise be read
///   as if it had come over TLS (the CVE-2011-0411 class of command injection).
final class SMTPReplyDecoder: ByteToMessageDecoder {
    typealias InboundOut = ByteBuffer

    /// Shared with the session, which moves it along as STARTTLS is sent and TLS is installed.
    final class TLSSwitch: Sendable {
        enum State { case plain, awaitingReply, switching, secured }
        private let state = NIOLockedValueBox(State.plain)
        var current: State { state.withLockedValue { $0 } }
        func set(_ value: State) { state.withLockedValue { $0 = value } }
    }

    static let maxLineLength = 4096
    let tlsSwitch: TLSSwitch

    init(tlsSwitch: TLSSwitch) { self.tlsSwitch = tlsSwitch }

    func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        if tlsSwitch.current == .switching, buffer.readableBytes > 0 {
            throw SMTPFailure.connection("the server sent data between STARTTLS and the TLS handshake")
        }
        guard let newline = buffer.readableBytesView.firstIndex(of: UInt8(ascii: "\n")) else {
            if buffer.readableBytes > Self.maxLineLength { throw SMTPFailure.connection("reply line longer than \(Self.maxLineLength) bytes") }
            return .needMoreData
        }
        let length = newline - buffer.readerIndex
        guard length <= Self.maxLineLength else { throw SMTPFailure.connection("reply line longer than \(Self.maxLineLength) bytes") }
        let line = buffer.readSlice(length: length)!
        buffer.moveReaderIndex(forwardBy: 1)
        // The final line of the reply to STARTTLS ("220 ..."): from here until TLS is installed, no byte may wait.
        if tlsSwitch.current == .awaitingReply, line.readableBytes >= 4, line.getInteger(at: line.readerIndex + 3, as: UInt8.self) == UInt8(ascii: " ") {
            tlsSwitch.set(.switching)
            if buffer.readableBytes > 0 { throw SMTPFailure.connection("the server sent data after its STARTTLS reply") }
        }
        context.fireChannelRead(wrapInboundOut(line))
        return .continue
    }

    func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws -> DecodingState {
        while try decode(context: context, buffer: &buffer) == .continue {}
        return .needMoreData
    }
}
