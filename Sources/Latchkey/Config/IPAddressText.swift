#if canImport(Glibc)
import Glibc
#endif

/// Validates textual IPv4/IPv6 addresses with inet_pton.
enum IPAddressText {
    static func isValid(_ text: String) -> Bool {
        var v4 = in_addr(), v6 = in6_addr()
        return inet_pton(AF_INET, text, &v4) == 1 || inet_pton(AF_INET6, text, &v6) == 1
    }
}
