import HTTPTypes
import NIOCore
import NIOHTTP1
import NIOHTTPTypes

/// Sits right after the HTTP/1.1 decoder. Two jobs the router cannot do:
/// - a deadline for a whole request head: a client that trickles header bytes resets the idle timer with
///   every byte, so without this one slow client holds a connection forever;
/// - CONNECT: the decoder treats it as a tunnel and waits for more, so it is refused here at once, as raw bytes
///   (NIO's encoder strips the body of any answer to CONNECT, and an error needs its body);
/// - a head the parser cannot read (bad method, bad request line) gets a JSON 400 instead of a bare one.
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

    init(headTimeout: TimeAmount) { self.headTimeout = headTimeout }

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

    /// Bytes reached the decoder: when no request is being read or answered, they start a head.
    fileprivate func bytesArrived(_ context: ChannelHandlerContext) {
        guard !inFlight, headStarted == nil, !refusing else { return }
        let now = NIODeadline.now()
        headStarted = now
        if timer == nil { arm(context, at: now + headTimeout) }
    }

    func channelInactive(context: ChannelHandlerContext) {
        timer?.cancel()
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let part = unwrapInboundIn(data)
        if case .head(let head) = part {
            headStarted = nil
            if head.method == .connect {
                refuseConnect(context)
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
        guard !inFlight, !refusing, error is HTTPParserError else { return context.fireErrorCaught(error) }
        // No path was read, so no dialect is known: the body carries both dialects' fields.
        refuse(context, status: .badRequest, description: "The request head is not valid HTTP/1.1.", code: "BadRequest")
    }

    /// Both dialects' fields, as for a head the parser cannot read: no path of a dialect is served through CONNECT.
    static let connectBody = #"{"error":"invalid_request","error_description":"CONNECT is not supported.","error_code":"MethodNotAllowed"}"#

    private func refuseConnect(_ context: ChannelHandlerContext) {
        refusing = true
        guard let raw = rawContext else { return context.close(promise: nil) }
        let answer = "HTTP/1.1 405 Method Not Allowed\r\nContent-Type: application/json\r\nContent-Length: \(Self.connectBody.utf8.count)\r\n"
            + "Allow: GET, POST, PUT, DELETE, OPTIONS\r\nCache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n"
            + Self.connectBody
        let channel = context.channel
        raw.writeAndFlush(NIOAny(ByteBuffer(string: answer))).whenComplete { _ in
            channel.close(mode: .output).whenFailure { _ in channel.close(promise: nil) }
            channel.eventLoop.scheduleTask(in: .seconds(2)) { channel.close(promise: nil) }
        }
    }

    private func refuse(_ context: ChannelHandlerContext, status: HTTPResponse.Status, description: String, code: String? = nil) {
        refusing = true
        let body = #"{"error":"invalid_request","error_description":"\#(description)""# + (code.map { #","error_code":"\#($0)""# } ?? "") + "}"
        let headers: HTTPFields = [.contentType: "application/json", .contentLength: String(body.utf8.count), .connection: "close",
                                   .cacheControl: "no-store", .allow: "GET, POST, DELETE, OPTIONS", HTTPField.Name("X-Content-Type-Options")!: "nosniff"]
        context.write(wrapOutboundOut(.head(HTTPResponse(status: status, headerFields: headers))), promise: nil)
        context.write(wrapOutboundOut(.body(ByteBuffer(string: body))), promise: nil)
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
        owner?.bytesArrived(ownerContext)
        context.fireChannelRead(data)
    }
}
