import HTTPTypes
import Hummingbird
import LatchkeyCore

/// The client's IP for limits and audit: the socket peer, or — only when that peer is a trusted proxy —
/// the nearest untrusted address in `X-Forwarded-For` (a client can prepend anything it likes).
struct ClientAddress: Sendable {
    let trustedProxies: Set<String>
    /// The dialect whose routes this instance serves (for metrics by dialect).
    var dialect: CallerDialect = .native

    init(trustedProxies: [String]) { self.trustedProxies = Set(trustedProxies) }

    /// The same resolver for another dialect's routes.
    func serving(_ dialect: CallerDialect) -> ClientAddress {
        var copy = self
        copy.dialect = dialect
        return copy
    }

    func resolve(_ request: Request, context: LatchkeyRequestContext) -> String? {
        let peer = context.remoteAddress?.ipAddress
        guard let peer, trustedProxies.contains(peer) else { return peer }
        let hops = request.headers[values: .xForwardedFor].flatMap { $0.split(separator: ",") }
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        return hops.reversed().first { !trustedProxies.contains($0) } ?? peer
    }
}

extension ClientAddress {
    /// The engine's view of who is calling: client id (native API only), address, user agent, languages.
    func caller(_ request: Request, context: LatchkeyRequestContext, clientId: String? = nil) -> CallerInfo {
        CallerInfo(dialect: dialect, clientId: clientId, ip: resolve(request, context: context), userAgent: request.headers[.userAgent],
                   acceptLanguage: request.headers[.acceptLanguage])
    }
}

extension HTTPField.Name {
    static let xForwardedFor = HTTPField.Name("X-Forwarded-For")!
}
