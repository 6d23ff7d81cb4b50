import Foundation

/// Which surface a request belongs to: the shape every answer to it takes, a handler's or not (404, 405, 413, 415,
/// broken framing, a head the parser refused, CONNECT, a bug). Decided in one place, from the path alone, after the
/// normalisation the router applies, so that a path the router serves and the errors around it agree.
enum Surface: String, Sendable, CaseIterable {
    /// MSAL's native API, and any public path no other surface claims: `{error, error_description}`.
    case native
    /// The OpenID provider's machine endpoints (token, introspection, revocation, userinfo, discovery, keys, and the
    /// passkey wire under `/ui/passkeys`): OAuth's `{error, error_description}`.
    case oauth
    /// The Realm SDKs' App Services API: `{error, error_code}` with `Content-Type: application/json` exactly.
    case appServices
    /// The Parse SDKs: `{code, error}`.
    case parse
    /// What a browser opens on the public listener (the provider's pages, hosted links, Parse's link pages): HTML.
    case pages
    /// The operator console on the admin listener: HTML.
    case console
    /// The admin API and anything else on the admin listener: `{error, error_description}`.
    case admin

    /// The public listener's table, first match wins. `parseMount` is nil when no Parse app is configured.
    static func publicSurface(path raw: String, parseMount: String?) -> Surface {
        let path = SurfacePath.normalized(raw)
        if let parseMount {
            if SurfacePath.path(path, isUnder: parseMount + "/apps") { return .pages }  // verify_email, reset links
            if SurfacePath.path(path, isUnder: parseMount) { return .parse }
        }
        if SurfacePath.path(path, isUnder: "/api/client/v2.0") { return .appServices }
        // The passkey wire under the pages is for the pages' script and other clients: JSON, OAuth's shape.
        if SurfacePath.path(path, isUnder: "/ui/passkeys") { return .oauth }
        if pagePaths.contains(where: { SurfacePath.path(path, isUnder: $0) }) { return .pages }
        // A browser's, also under a tenant (`/{tenant}/oauth2/v2.0/authorize`).
        if SurfacePath.path(path, endsWith: "/oauth2/v2.0/authorize") || SurfacePath.path(path, endsWith: "/oauth2/v2.0/logout") {
            return .pages
        }
        if oauthPaths.contains(where: { SurfacePath.path(path, isUnder: $0) }) { return .oauth }
        return .native
    }

    /// The admin listener's table.
    static func adminSurface(path raw: String) -> Surface {
        SurfacePath.path(SurfacePath.normalized(raw), isUnder: "/console") ? .console : .admin
    }

    static let pagePaths = ["/ui", "/confirm", "/reset-password", "/oauth2/v2.0/authorize", "/oauth2/v2.0/logout"]
    static let oauthPaths = ["/oidc", "/.well-known", "/discovery"]
}

/// Paths as the router matches them, for deciding their surface.
enum SurfacePath {
    /// Percent-decoded (an encoded `/` becomes a separator, as a proxy may decode it; bytes that are no UTF-8 become
    /// U+FFFD), matrix parameters (`;x=1`) dropped from each segment, empty and `.` segments removed, `..` resolved;
    /// always starts with `/`.
    static func normalized(_ raw: String) -> String {
        // Bytes, not Characters: a combining mark after `/` joins it in one grapheme, and would hide the separator.
        let bare = raw.utf8.prefix { $0 != UInt8(ascii: "?") && $0 != UInt8(ascii: "#") }
        var segments: [ArraySlice<UInt8>] = []
        for part in percentDecoded(bare).split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: true) {
            let segment = part.prefix { $0 != UInt8(ascii: ";") }
            if segment.isEmpty || segment.elementsEqual([UInt8(ascii: ".")]) { continue }
            if segment.elementsEqual([UInt8(ascii: "."), UInt8(ascii: ".")]) { _ = segments.popLast() } else { segments.append(segment) }
        }
        var path: [UInt8] = []
        for segment in segments { path.append(UInt8(ascii: "/")); path.append(contentsOf: segment) }
        return path.isEmpty ? "/" : String(decoding: path, as: UTF8.self)
    }

    /// Every valid `%XX` decoded, anything else kept (a path the router refuses is still someone's path, and still
    /// gets an answer in its surface's shape).
    private static func percentDecoded(_ bytes: Substring.UTF8View) -> [UInt8] {
        func hex(_ b: UInt8) -> UInt8? {
            switch b {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): b - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): b - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): b - UInt8(ascii: "A") + 10
            default: nil
            }
        }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = bytes.startIndex
        while index != bytes.endIndex {
            let byte = bytes[index]
            let first = bytes.index(after: index)
            if byte == UInt8(ascii: "%"), first != bytes.endIndex, bytes.index(after: first) != bytes.endIndex,
               let high = hex(bytes[first]), let low = hex(bytes[bytes.index(after: first)]) {
                out.append(high << 4 | low)
                index = bytes.index(first, offsetBy: 2)
            } else {
                out.append(byte)
                index = first
            }
        }
        return out
    }

    /// `path` is `prefix` or below it, segment-wise (`/uix` is not under `/ui`), byte for byte.
    static func path(_ path: String, isUnder prefix: String) -> Bool {
        path.utf8.elementsEqual(prefix.utf8) || path.utf8.starts(with: (prefix + "/").utf8)
    }

    static func path(_ path: String, endsWith suffix: String) -> Bool {
        path.utf8.count >= suffix.utf8.count && path.utf8.suffix(suffix.utf8.count).elementsEqual(suffix.utf8)
    }
}
