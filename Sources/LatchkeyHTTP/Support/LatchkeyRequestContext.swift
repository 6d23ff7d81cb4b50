import Hummingbird
import NIOCore

/// Request context carrying the peer address (for audit and rate limits).
public struct LatchkeyRequestContext: RequestContext, RemoteAddressRequestContext {
    public var coreContext: CoreRequestContextStorage
    private let channel: any Channel

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        channel = source.channel
    }

    /// Read when a route asks (NIO takes a lock for it), not for every request.
    public var remoteAddress: SocketAddress? { channel.remoteAddress }

    /// Request bodies are capped at 64 KiB; nothing Latchkey accepts is bigger.
    public var maxUploadSize: Int { 64 * 1024 }

    /// Typed bodies: forms for the native API, JSON objects for App Services.
    public var requestDecoder: some RequestDecoder { LatchkeyRequestDecoder() }
}
