import Foundation
import Hummingbird

extension Parameters {
    /// The `:user` path segment, percent-decoded: the router matches the raw path, and imported ids may hold
    /// characters a client escapes (Auth0's `auth0|…` arrives as `auth0%7C…`).
    func requireUser() throws -> String { try requireDecoded("user", what: "user id") }

    /// A path segment, percent-decoded: a metadata-document client's id is a URL (`https%3A%2F%2F…`).
    func requireDecoded(_ name: String, what: String) throws -> String {
        let raw = try require(name)
        guard let decoded = raw.removingPercentEncoding, !decoded.isEmpty else {
            throw HTTPError(.badRequest, message: "the \(what) in the path is not valid percent-encoding")
        }
        return decoded
    }
}
