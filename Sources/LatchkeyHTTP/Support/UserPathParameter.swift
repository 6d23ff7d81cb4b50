import Foundation
import Hummingbird

extension Parameters {
    /// The `:user` path segment, percent-decoded: the router matches the raw path, and imported ids may hold
    /// characters a client escapes (Auth0's `auth0|…` arrives as `auth0%7C…`).
    func requireUser() throws -> String {
        let raw = try require("user")
        guard let decoded = raw.removingPercentEncoding, !decoded.isEmpty else {
            throw HTTPError(.badRequest, message: "the user id in the path is not valid percent-encoding")
        }
        return decoded
    }
}
