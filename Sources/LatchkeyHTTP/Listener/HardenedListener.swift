import HummingbirdCore
import HummingbirdTLS
import NIOCore
import NIOSSL

/// The HTTP/1.1 hardening every listener gets, the public one and the admin one alike: a deadline for a whole
/// request head, an idle timeout, small header limits, a cap on open connections, and TLS 1.2 or later when a
/// certificate is given.
public struct ListenerHardening: Sendable {
    public var idleTimeoutSeconds: Int64 = 60
    /// A whole request head must arrive within this many seconds (slow clients are cut).
    public var headerTimeoutSeconds: Int64 = 10
    public var connections = ConnectionCap.Limits()
    /// PEM certificate chain and private key paths; HTTPS when set.
    public var tls: (certificate: String, key: String)?
    public init() {}

    /// The server builder with all of it; `cap` counts this listener's connections, `answers` shapes what the head
    /// guard refuses.
    func serverBuilder(cap: ConnectionCap, answers: SurfaceAnswers) throws -> HTTPServerBuilder {
        // Small header limits: nothing Latchkey serves needs big headers, and big ones cost memory per connection.
        let headTimeout = TimeAmount.seconds(headerTimeoutSeconds)
        let plainText = tls == nil
        let http1 = HTTP1Channel.Configuration(
            additionalChannelHandlers: [RequestHeadGuard(headTimeout: headTimeout, answers: answers), ConnectionCapInstaller(cap: cap, plainText: plainText)],
            idleTimeout: .seconds(idleTimeoutSeconds),
            httpDecoderConfiguration: .init(maxHeaderFieldSize: 16 * 1024, maxHeaderListSize: 32 * 1024, maxHeaderFieldCount: 100))
        guard let tls else { return .http1(configuration: http1) }
        let chain = try NIOSSLCertificate.fromPEMFile(tls.certificate).map { NIOSSLCertificateSource.certificate($0) }
        let key = try NIOSSLPrivateKey(file: tls.key, format: .pem)
        var tlsConfiguration = TLSConfiguration.makeServerConfiguration(certificateChain: chain, privateKey: .privateKey(key))
        tlsConfiguration.minimumTLSVersion = .tlsv12  // TLS 1.0 and 1.1 are broken and deprecated (RFC 8996)
        return try .tls(.http1(configuration: http1), tlsConfiguration: tlsConfiguration)
    }
}
