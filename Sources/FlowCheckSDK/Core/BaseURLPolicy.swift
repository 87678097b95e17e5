import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Which base URLs an SDK client accepts: `https://` anywhere, `http://` only to loopback
/// (`localhost`, `127.0.0.0/8`, `::1`), so tokens and secrets never cross a network in clear text
/// while the harness's fake servers can still listen on loopback without TLS.
///
/// A configuration takes one (`CloverConfiguration`, `BraintreeConnectConfiguration`); the
/// default, ``standard``, is the only correct one. The host predicate is the configuration point
/// an app (or SDK build) could get wrong, as a string-prefix test of "loopback" would.
public struct BaseURLPolicy: Sendable {
    /// Whether a host (as `URL.host` returns it) may be reached over plain http.
    public var isLoopback: @Sendable (_ host: String) -> Bool

    /// A policy with its own loopback test; the default is ``isLoopback(host:)``.
    public init(isLoopback: @escaping @Sendable (_ host: String) -> Bool = BaseURLPolicy.isLoopback(host:)) {
        self.isLoopback = isLoopback
    }

    /// https anywhere, http only to `localhost`, `127.0.0.0/8` or `::1`.
    public static let standard = BaseURLPolicy()

    /// Checks `url` against the standard policy.
    static func validate(_ url: URL) throws {
        try standard.check(url)
    }

    /// Checks `url` against the policy.
    /// - Throws: `OAuthError` `.configuration` when the scheme is not http(s), the host is
    ///   missing, or plain http targets a non-loopback host.
    public func check(_ url: URL) throws {
        guard let scheme = url.scheme?.lowercased(), scheme == "https" || scheme == "http" else {
            throw OAuthError.configuration("the base URL must use https")
        }
        guard let host = url.host, !host.isEmpty else {
            throw OAuthError.configuration("the base URL has no host")
        }
        if scheme == "http" && !isLoopback(host) {
            throw OAuthError.configuration("plain http is only allowed to a loopback host; use https for \(host)")
        }
    }

    /// Whether `host` (as `URL.host` returns it, IPv6 possibly in brackets) is loopback.
    @Sendable public static func isLoopback(host: String) -> Bool {
        var name = host.lowercased()
        if name.hasPrefix("[") && name.hasSuffix("]") {
            name = String(name.dropFirst().dropLast())
        }
        if name == "localhost" {
            return true
        }
        var ipv4 = in_addr()
        if inet_pton(AF_INET, name, &ipv4) == 1 {
            // s_addr is in network byte order: the first octet is the lowest-addressed byte.
            let firstOctet = withUnsafeBytes(of: ipv4.s_addr) { $0[0] }
            return firstOctet == 127
        }
        var ipv6 = in6_addr()
        if inet_pton(AF_INET6, name, &ipv6) == 1 {
            let bytes = withUnsafeBytes(of: ipv6) { Array($0) }
            return bytes.dropLast().allSatisfy { $0 == 0 } && bytes.last == 1
        }
        return false
    }
}
