import Hummingbird
import NIOCore

/// Request context carrying the peer address (for audit now, rate limits later).
public struct LatchkeyRequestContext: RequestContext, RemoteAddressRequestContext {
    public var coreContext: CoreRequestContextStorage
    public let remoteAddress: SocketAddress?

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
    }

    /// Request bodies are capped at 64 KiB; nothing Latchkey accepts is bigger.
    public var maxUploadSize: Int { 64 * 1024 }

    /// Typed bodies: forms for the native API, JSON objects for App Services.
    public var requestDecoder: some RequestDecoder { LatchkeyRequestDecoder() }
}
