import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The IPv4 address a listener binds: loopback (the default everywhere), or another address
/// `flowcheck serve --host` names so a device on the network can reach the fakes.
public struct BindAddress: Sendable, Equatable, CustomStringConvertible {
    /// The dotted quad as given, e.g. "127.0.0.1" or "0.0.0.0".
    public let description: String
    /// The address in network byte order.
    let networkOrder: UInt32

    /// 127.0.0.1.
    public static let loopback = BindAddress(trusted: "127.0.0.1", networkOrder: UInt32(0x7F00_0001).bigEndian)

    private init(trusted text: String, networkOrder: UInt32) {
        self.description = text
        self.networkOrder = networkOrder
    }

    /// A dotted-quad IPv4 address; nil for anything else (host names are not resolved).
    public init?(_ text: String) {
        var address = in_addr()
        guard inet_pton(AF_INET, text, &address) == 1 else { return nil }
        self.init(trusted: text, networkOrder: address.s_addr)
    }

    /// Whether only this machine can connect (127.0.0.0/8).
    public var isLoopback: Bool {
        UInt32(bigEndian: networkOrder) >> 24 == 127
    }

    /// Whether it is 0.0.0.0: every interface.
    public var isAny: Bool { networkOrder == 0 }
}
