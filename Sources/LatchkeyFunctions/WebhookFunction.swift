import AsyncHTTPClient
import Foundation
import LatchkeyCore
import NIOCore
import NIOFoundationCompat

/// `kind: webhook`: POSTs the JSON input to the operator's URL, signed per Standard Webhooks
/// (`webhook-id`, `webhook-timestamp`, `webhook-signature: v1,<base64 HMAC-SHA256(id.timestamp.body)>`).
/// No redirects (a 307/308 would re-post the new password and token elsewhere), and one deadline around
/// the whole call, answer body included.
public struct WebhookFunction: OperatorFunction {
    public let url: String
    let key: [UInt8]
    public let timeoutSeconds: Int

    /// One client for every webhook, redirects refused; it lives as long as the process.
    static let client = HTTPClient(eventLoopGroupProvider: .singleton,
                                   configuration: HTTPClient.Configuration(redirectConfiguration: .disallow))

    /// `secret` is `whsec_<base64 key>` as Standard Webhooks issues them, or any other string used as is.
    public init(url: String, secret: String, timeoutSeconds: Int) {
        self.url = url
        self.timeoutSeconds = timeoutSeconds
        if secret.hasPrefix("whsec_"), let decoded = Data(base64Encoded: String(secret.dropFirst(6))) {
            key = [UInt8](decoded)
        } else {
            key = Array(secret.utf8)
        }
    }

    public func invoke(_ input: JSONValue) async -> FunctionReply {
        let seconds = timeoutSeconds
        return await withTaskGroup(of: FunctionReply.self) { group in
            group.addTask { await self.post(input, deadline: .now() + .seconds(Int64(seconds))) }
            group.addTask {
                try? await Task.sleep(for: .seconds(seconds))
                return .failed("webhook timed out after \(seconds) s")
            }
            let first = await group.next()!
            group.cancelAll()
            return first
        }
    }

    private func post(_ input: JSONValue, deadline: NIODeadline) async -> FunctionReply {
        do {
            let body = try JSONEncoder().encode(input)
            let id = "msg_" + SecureRandom.token(byteCount: 16)
            let timestamp = String(Int(Date().timeIntervalSince1970))
            let signed = Array("\(id).\(timestamp).".utf8) + [UInt8](body)
            let signature = Data(Digest.hmacSHA256(key: key, data: signed)).base64EncodedString()
            var request = HTTPClientRequest(url: url)
            request.method = .POST
            request.headers.add(name: "Content-Type", value: "application/json")
            request.headers.add(name: "webhook-id", value: id)
            request.headers.add(name: "webhook-timestamp", value: timestamp)
            request.headers.add(name: "webhook-signature", value: "v1,\(signature)")
            request.body = .bytes(ByteBuffer(data: body))
            let response = try await Self.client.execute(request, deadline: deadline)
            guard (200..<300).contains(response.status.code) else {
                return .failed("webhook answered HTTP \(response.status.code)")
            }
            let answer = try await response.body.collect(upTo: 64 * 1024)
            return .answered(Data(buffer: answer))
        } catch {
            return .failed("webhook failed: \(error)")
        }
    }
}
