import LatchkeyCore
import NIOCore
import Synchronization

/// How many connections a listener keeps open: in total, and per client address (an IPv6 client by its /64). Past
/// either, a new connection is answered 503 at once and closed, so no client, however many sockets it opens within
/// the idle timeout, can make the server hold unbounded memory. Trusted proxies count only against the total.
public final class ConnectionCap: Sendable {
    public struct Limits: Sendable, Equatable {
        public var total: Int
        public var perAddress: Int
        public init(total: Int = 8192, perAddress: Int = 128) { self.total = total; self.perAddress = perAddress }
    }

    private struct Counts { var total = 0; var byAddress: [String: Int] = [:] }
    let limits: Limits
    private let exempt: Set<String>
    private let counts = Mutex(Counts())

    public init(limits: Limits, exemptAddresses: [String] = []) {
        self.limits = limits
        self.exempt = Set(exemptAddresses)
    }

    public var open: Int { counts.withLock { $0.total } }

    /// Counts a new connection from `address`; false (and nothing counted) when it would go past a limit.
    func admit(_ address: String?) -> Bool {
        let key = address.flatMap { exempt.contains($0) ? nil : RateLimitSubject.network(of: $0) }
        return counts.withLock { counts in
            guard counts.total < limits.total else { return false }
            if let key {
                guard counts.byAddress[key, default: 0] < limits.perAddress else { return false }
                counts.byAddress[key, default: 0] += 1
            }
            counts.total += 1
            return true
        }
    }

    func release(_ address: String?) {
        let key = address.flatMap { exempt.contains($0) ? nil : RateLimitSubject.network(of: $0) }
        counts.withLock { counts in
            counts.total -= 1
            guard let key, let count = counts.byAddress[key] else { return }
            counts.byAddress[key] = count > 1 ? count - 1 : nil
        }
    }
}

/// The first handler of every connection: admits it against the cap or answers 503 and closes it. It sits in front
/// of TLS and HTTP, so its refusal is written as plain bytes (a TLS listener just closes).
final class ConnectionCapHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny
    private enum State { case pending, admitted, refused }
    private let cap: ConnectionCap
    private let plainText: Bool
    private var state = State.pending

    init(cap: ConnectionCap, plainText: Bool) { self.cap = cap; self.plainText = plainText }

    static let refusal: String = {
        let body = #"{"error":"temporarily_unavailable","error_description":"Too many open connections; try again shortly.","error_code":"ServiceUnavailable","code":1}"#
        return "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n"
            + "Retry-After: 1\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n" + body
    }()

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { admit(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        // Passed on first: admission may take this handler out of the pipeline.
        context.fireChannelActive()
        if case .pending = state { admit(context) }
    }

    private func admit(_ context: ChannelHandlerContext) {
        let address = context.channel.remoteAddress?.ipAddress
        guard cap.admit(address) else {
            state = .refused
            guard plainText else { return context.close(promise: nil) }
            let channel = context.channel
            context.writeAndFlush(NIOAny(ByteBuffer(string: Self.refusal))).whenComplete { _ in channel.close(promise: nil) }
            return
        }
        state = .admitted
        // Admitted: the cap needs to hear of the close only, so the handler leaves the path every read takes.
        let cap = self.cap
        context.channel.closeFuture.whenComplete { _ in cap.release(address) }
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .refused = state { return }  // a refused connection's bytes go nowhere
        context.fireChannelRead(data)
    }
}

/// Put among the HTTP channel's handlers (which come after the codec), it installs the cap's handler at the very
/// front of the pipeline, where a refusal can be written as raw bytes, and then takes itself out of the way of
/// every request part that would otherwise pass through it.
final class ConnectionCapInstaller: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny
    private let cap: ConnectionCap
    private let plainText: Bool

    init(cap: ConnectionCap, plainText: Bool) { self.cap = cap; self.plainText = plainText }

    func handlerAdded(context: ChannelHandlerContext) {
        try? context.pipeline.syncOperations.addHandler(ConnectionCapHandler(cap: cap, plainText: plainText), position: .first)
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }
}
