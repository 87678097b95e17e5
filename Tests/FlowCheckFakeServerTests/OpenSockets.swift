import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// This process's TCP sockets on one loopback port, read from /proc (Linux).
///
/// Why not a plain count of /proc/self/fd: Swift Testing runs other suites in parallel in
/// the same process, and their sockets come and go, so a process-wide count is never stable.
/// The server opens nothing but sockets (the listener and accepted connections), all on its
/// port, so the sockets on that port are exactly what it could leak, and counting them is
/// exact whatever else runs.
enum OpenSockets {
    /// Socket inodes this process holds whose local port (`local`) or remote port is `port`.
    static func inodes(port: Int, local: Bool) -> Set<String> {
        processSocketInodes().intersection(tcpInodes(port: port, local: local))
    }

    /// The members of `inodes` that are still open descriptors in this process.
    static func stillOpen(_ inodes: Set<String>) -> Set<String> {
        processSocketInodes().intersection(inodes)
    }

    /// Inodes behind "socket:[N]" links in /proc/self/fd; descriptors closed mid-scan are skipped.
    private static func processSocketInodes() -> Set<String> {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        var inodes: Set<String> = []
        for name in names {
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(name)"),
                  target.hasPrefix("socket:["), target.hasSuffix("]") else { continue }
            inodes.insert(String(target.dropFirst("socket:[".count).dropLast()))
        }
        return inodes
    }

    /// Inodes of IPv4 TCP sockets whose local (or remote) port is `port`. TIME_WAIT entries
    /// have inode 0 and belong to no descriptor, so they never match.
    private static func tcpInodes(port: Int, local: Bool) -> Set<String> {
        let hexPort = String(format: "%04X", port)
        var inodes: Set<String> = []
        for line in readProcFile("/proc/net/tcp").split(separator: "\n").dropFirst() {
            let fields = line.split(separator: " ")
            guard fields.count > 9 else { continue }
            let address = local ? fields[1] : fields[2]
            guard address.hasSuffix(":" + hexPort), fields[9] != "0" else { continue }
            inodes.insert(String(fields[9]))
        }
        return inodes
    }

    /// TCP connections in TIME_WAIT (state 06) whose local port is `port`: they belong to no
    /// process, so these are machine-wide, but a port in use by a live server is its alone.
    static func timeWaitCount(localPort port: Int) -> Int {
        let hexPort = String(format: "%04X", port)
        return readProcFile("/proc/net/tcp").split(separator: "\n").dropFirst().filter { line in
            let fields = line.split(separator: " ")
            return fields.count > 3 && fields[1].hasSuffix(":" + hexPort) && fields[3] == "06"
        }.count
    }

    /// /proc files report size 0, so read until end of file rather than trusting stat.
    private static func readProcFile(_ path: String) -> String {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { return "" }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            bytes += chunk[0..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
