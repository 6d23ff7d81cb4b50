import HTTPTypes
import NIOCore
import NIOHTTP1
import NIOHTTPTypes

/// Sits right after the HTTP/1.1 decoder. Two jobs the router cannot do:
/// - a deadline for a whole request head: a client that trickles header bytes resets the idle timer with
///   every byte, so without this one slow client holds a connection forever;
/// - CONNECT: the decoder treats it as a tunnel and waits for more, so it is refused here at once, as raw bytes
///   (NIO's encoder strips the body of any answer to CONNECT, and an error needs its body);
/// - a head the parser cannot read (bad method, a byte it refuses in the target, a header past the limit) gets a
///   400, 414 or 431 instead of a bare one.
/// Both answers are in the shape of the surface the request's path belongs to (`SurfaceAnswers`): the guard keeps
/// the raw request line of the head being read, since the parser that refused it never produced a path.
final class RequestHeadGuard: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let headTimeout: TimeAmount
    /// When the head being read began (its first byte); nil between requests.
    private var headStarted: NIODeadline?
    /// One timer per connection, not one per request: it is re-armed only when it fires during a head, so a busy
    /// keep-alive connection schedules about one task per `headTimeout` instead of one per request.
    private var timer: Scheduled<Void>?
    private var refusing = false
    /// A head was passed on and its answer is not complete yet: errors then belong to the route reading the body.
    private var inFlight = false

    private let answers: SurfaceAnswers
    /// The raw request line of the head being read, up to `lineLimit` bytes, and whether its end was seen.
    private var requestLine: [UInt8] = []
    private var lineComplete = true
    /// Longer request lines are refused (414) by the header limits anyway; this is only what is kept to name the path.
    private static let lineLimit = 8 * 1024

    init(headTimeout: TimeAmount, answers: SurfaceAnswers) { self.headTimeout = headTimeout; self.answers = answers }

    /// Watches the raw bytes just before the HTTP/1.1 decoder: a head's deadline starts with its first byte, so a
    /// quiet keep-alive connection is left to the idle timeout.
    /// It sits in front of the HTTP encoder (behind TLS), so what it writes skips the encoder but is still encrypted.
    func handlerAdded(context: ChannelHandlerContext) {
        guard let encoder = try? context.pipeline.syncOperations.handler(type: HTTPResponseEncoder.self) else { return }
        try? context.pipeline.syncOperations.addHandler(ByteWatch(owner: self, context: context), position: .before(encoder))
    }

    /// The watch's own context, where raw bytes can be written past the HTTP encoder.
    fileprivate var rawContext: ChannelHandlerContext?

    func handlerRemoved(context: ChannelHandlerContext) { timer?.cancel() }

    /// Bytes reached the decoder: when no request is being read or answered, they start a head. The request line
    /// they begin with is kept until its end.
    fileprivate func bytesArrived(_ context: ChannelHandlerContext, _ bytes: ByteBuffer) {
        if !inFlight, headStarted == nil, !refusing {
            let now = NIODeadline.now()
            headStarted = now
            if timer == nil { arm(context, at: now + headTimeout) }
            requestLine.removeAll(keepingCapacity: true)
            lineComplete = false
        }
        guard !lineComplete else { return }
        bytes.withUnsafeReadableBytes { raw in
            let end = raw.firstIndex(of: UInt8(ascii: "\n"))
            lineComplete = end != nil
            let room = Self.lineLimit - requestLine.count
            requestLine.append(contentsOf: raw[..<min(end ?? raw.endIndex, raw.startIndex + room)])
        }
    }

    /// The path of the request line kept, as far as it can be read (`/` when there is none).
    private var requestPath: String {
        let parts = requestLine.split(separator: UInt8(ascii: " "), maxSplits: 2, omittingEmptySubsequences: true)
        guard parts.count >= 2 else { return "/" }
        return String(decoding: parts[1], as: UTF8.self)
    }

    func channelInactive(context: ChannelHandlerContext) {
        timer?.cancel()
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let part = unwrapInboundIn(data)
        if case .head(let head) = part {
            headStarted = nil
            lineComplete = true
            if head.method == .connect {
                refuseConnect(context, target: head.path ?? "/")
                return
            }
            inFlight = true
        }
        guard !refusing else { return }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        // The answer is complete: the next head's deadline starts with its first byte.
        if case .end = unwrapOutboundIn(data) { inFlight = false }
        context.write(data, promise: promise)
    }

    private func arm(_ context: ChannelHandlerContext, at due: NIODeadline) {
        timer = context.eventLoop.assumeIsolated().scheduleTask(deadline: due) { [weak self] in
            guard let self else { return }
            self.timer = nil
            guard let started = self.headStarted else { return }  // no head in progress: the idle timeout's business
            let due = started + self.headTimeout
            if NIODeadline.now() >= due { context.channel.close(promise: nil) } else { self.arm(context, at: due) }
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard !inFlight, !refusing, let error = error as? HTTPParserError else { return context.fireErrorCaught(error) }
        let path = requestPath
        switch error {
        case .headerOverflow where !lineComplete:
            refuse(context, answers.answer(path: path, .uriTooLong, "The request target is too long."))
        case .headerOverflow:
            refuse(context, answers.answer(path: path, .requestHeaderFieldsTooLarge, "The request's header fields are too large."))
        default:
            refuse(context, answers.answer(path: path, .badRequest, "The request head is not valid HTTP/1.1."))
        }
    }

    /// CONNECT, written past the encoder (which would drop the body of an answer to CONNECT), in the target's surface.
    private func refuseConnect(_ context: ChannelHandlerContext, target: String) {
        refusing = true
        guard let raw = rawContext else { return context.close(promise: nil) }
        var answer = answers.answer(path: target, .methodNotAllowed, "CONNECT is not supported.")
        answer.headers[.allow] = "GET, POST, PUT, DELETE, OPTIONS"
        answer.headers[.contentLength] = String(answer.body.readableBytes)
        answer.headers[.connection] = "close"
        var head = "HTTP/1.1 \(answer.status.code) \(answer.status.reasonPhrase)\r\n"
        for field in answer.headers { head += "\(field.name.canonicalName): \(field.value)\r\n" }
        var bytes = ByteBuffer(string: head + "\r\n")
        bytes.writeImmutableBuffer(answer.body)
        let channel = context.channel
        raw.writeAndFlush(NIOAny(bytes)).whenComplete { _ in
            channel.close(mode: .output).whenFailure { _ in channel.close(promise: nil) }
            channel.eventLoop.scheduleTask(in: .seconds(2)) { channel.close(promise: nil) }
        }
    }

    private func refuse(_ context: ChannelHandlerContext, _ answer: EdgeAnswer) {
        refusing = true
        var headers = answer.headers
        headers[.contentLength] = String(answer.body.readableBytes)
        headers[.connection] = "close"
        context.write(wrapOutboundOut(.head(HTTPResponse(status: answer.status, headerFields: headers))), promise: nil)
        context.write(wrapOutboundOut(.body(answer.body)), promise: nil)
        // Close our side only and keep discarding what the client still sends: a full close with unread bytes in
        // the socket would reset the connection and the client would lose this answer. The full close follows.
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in
            channel.close(mode: .output).whenFailure { _ in channel.close(promise: nil) }
            channel.eventLoop.scheduleTask(in: .seconds(2)) { channel.close(promise: nil) }
        }
    }
}

/// Tells the guard when bytes arrive, before the decoder buffers them out of its sight.
private final class ByteWatch: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    private weak var owner: RequestHeadGuard?
    /// The guard's own context: its deadline closes the channel from there.
    private let ownerContext: ChannelHandlerContext

    init(owner: RequestHeadGuard, context: ChannelHandlerContext) { self.owner = owner; self.ownerContext = context }

    func handlerAdded(context: ChannelHandlerContext) { owner?.rawContext = context }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        owner?.bytesArrived(ownerContext, unwrapInboundIn(data))
        context.fireChannelRead(data)
    }
}
