#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A host's addresses as the system resolver gives them, and whether each is one the public internet routes to.
struct NetworkAddress: Equatable {
    /// Four bytes (IPv4) or sixteen (IPv6).
    var bytes: [UInt8]

    var text: String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let family = bytes.count == 4 ? AF_INET : AF_INET6
        _ = bytes.withUnsafeBytes { inet_ntop(family, $0.baseAddress, &buffer, socklen_t(buffer.count)) }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Not private, loopback, link-local, shared (CGNAT), multicast, reserved or documentation space (RFC 6890).
    var isPublic: Bool {
        if bytes.count == 16 {
            let b = bytes
            if b[0..<10].allSatisfy({ $0 == 0 }) && b[10] == 0xff && b[11] == 0xff { return NetworkAddress(bytes: Array(b[12...])).isPublic }
            if b[0..<15].allSatisfy({ $0 == 0 }) { return false }                   // :: and ::1
            if b[0] & 0xfe == 0xfc { return false }                                 // fc00::/7 unique local
            if b[0] == 0xfe && b[1] & 0xc0 == 0x80 { return false }                 // fe80::/10 link-local
            if b[0] == 0xff { return false }                                        // multicast
            if b[0] == 0x20 && b[1] == 0x01 && b[2] == 0x0d && b[3] == 0xb8 { return false } // 2001:db8::/32
            if b[0] == 0x00 && b[1] == 0x64 && b[2] == 0xff && b[3] == 0x9b { return false } // 64:ff9b::/96 NAT64
            return true
        }
        guard bytes.count == 4 else { return false }
        let (a, b) = (bytes[0], bytes[1])
        switch a {
        case 0, 10, 127: return false
        case 100 where b & 0xc0 == 64: return false                                // 100.64.0.0/10
        case 169 where b == 254: return false
        case 172 where b & 0xf0 == 16: return false
        case 192 where b == 168 || (b == 0 && bytes[2] == 0) || (b == 0 && bytes[2] == 2): return false
        case 198 where b == 18 || b == 19 || (b == 51 && bytes[2] == 100): return false
        case 203 where b == 0 && bytes[2] == 113: return false
        case 224...255: return false
        default: return true
        }
    }
}

enum NetworkAddresses {
    /// Every address `host` resolves to (a literal resolves to itself); empty when it does not resolve. Blocking:
    /// called on a thread pool.
    static func resolve(_ host: String) -> [NetworkAddress] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Glibc)
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #else
        hints.ai_socktype = SOCK_STREAM
        #endif
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, &hints, &list) == 0, let first = list else { return [] }
        defer { freeaddrinfo(first) }
        var addresses: [NetworkAddress] = []
        var next: UnsafeMutablePointer<addrinfo>? = first
        while let entry = next {
            if let socket = entry.pointee.ai_addr {
                switch Int32(socket.pointee.sa_family) {
                case AF_INET:
                    socket.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { v4 in
                        addresses.append(NetworkAddress(bytes: withUnsafeBytes(of: v4.pointee.sin_addr) { Array($0) }))
                    }
                case AF_INET6:
                    socket.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { v6 in
                        addresses.append(NetworkAddress(bytes: withUnsafeBytes(of: v6.pointee.sin6_addr) { Array($0) }))
                    }
                default: break
                }
            }
            next = entry.pointee.ai_next
        }
        return addresses
    }
}
