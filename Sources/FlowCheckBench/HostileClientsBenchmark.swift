import Foundation
import FlowCheckFakeServer
import FlowCheckServe
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Issue 24's starvation figure: `serve`'s host (every default provider) with `hostile`
/// connections held open on Moltin's port, a quarter each idle (connected, silent), slow head
/// (half a request line), slow body (a head announcing 1,000 bytes, ten sent) and slow reader
/// (requests pipelined and their answers never read, until the server's writes block), while a
/// normal client asks `GET /v1/products` `requests` times, each on a new connection. Counted:
/// the answers it got with 200 within `within` seconds (must be at least 99%), and the slowest.
struct HostileClientsBenchmark {
    var hostile = 500
    var requests = 1_000
    var within: Double = 1

    struct Figure {
        var hostile: Int
        var opened: Int
        var requests: Int
        var answeredInTime: Int
        var slowest: Double
        var within: Double
        /// Which requests (0 the first) were late or not answered 200.
        var late: [Int]

        var share: Double { Double(answeredInTime) / Double(max(requests, 1)) }
        var holds: Bool { share >= 0.99 && opened == hostile }

        var lines: [String] {
            [
                "hostile connections held open on serve's Moltin port: \(opened) of \(hostile) (idle, slow head, slow body, slow reader, a quarter each)",
                "normal client beside them: \(answeredInTime) of \(requests) answered 200 within \(Format.fixed(within, 1)) s (\(Format.fixed(share * 100, 1))%; must be ≥ 99%: \(holds ? "holds" : "FAILS")), slowest \(Format.fixed(slowest * 1000, 1)) ms" + (late.isEmpty ? "" : "; late or failed: request \(late.prefix(10).map(String.init).joined(separator: ", "))\(late.count > 10 ? ", ..." : "") (0 is the first)"),
            ]
        }
    }

    func run() throws(BenchError) -> Figure {
        // Two descriptors a hostile connection (ours and the server's), in one process.
        _ = ConnectionCap.raisedDescriptorLimit()
        let written = Locked(0)
        let running = try ServeSoakBenchmark.startHost(written)
        defer { running.host.stop() }
        let port = running.port
        var held: [Int32] = []
        defer { held.forEach { close($0) } }
        let kinds: [[UInt8]] = [
            [],
            Array("GET /v1/products HTTP/1.1\r\nHo".utf8),
            Array("POST /oauth/access_token HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 1000\r\n\r\ngrant_type".utf8),
            Array(String(repeating: "GET /v1/products HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(running.token)\r\n\r\n", count: 64).utf8),
        ]
        for index in 0..<hostile {
            guard let fd = Self.openConnection(port: port) else { continue }
            let bytes = kinds[index % kinds.count]
            if index % kinds.count == 3 {
                // A slow reader: a small receive window, and requests until the sends block.
                var small: Int32 = 4096
                _ = setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, socklen_t(MemoryLayout<Int32>.size))
                for _ in 0..<16 { _ = Self.sendSome(fd, bytes) }
            } else if !bytes.isEmpty {
                _ = Self.sendSome(fd, bytes)
            }
            held.append(fd)
        }
        let request = Array("GET /v1/products HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nAuthorization: Bearer \(running.token)\r\nConnection: close\r\n\r\n".utf8)
        var inTime = 0
        var slowest = 0.0
        var late: [Int] = []
        for number in 0..<requests {
            let start = ContinuousClock.now
            var status = 0
            if let connection = try? LoadConnection(port: port) {
                status = (try? connection.roundTrip(request)) ?? 0
            }
            let seconds = Stopwatch.seconds(ContinuousClock.now - start)
            slowest = max(slowest, seconds)
            if status == 200, seconds <= within { inTime += 1 } else { late.append(number) }
        }
        return Figure(hostile: hostile, opened: held.count, requests: requests, answeredInTime: inTime, slowest: slowest, within: within, late: late)
    }

    /// A non-blocking connection to 127.0.0.1:`port` (nil when it fails).
    private static func openConnection(port: Int) -> Int32? {
        guard let fd = try? LoadConnection.connectedSocket(port: port) else { return nil }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        return fd
    }

    /// Sends what the socket takes now; the count sent.
    private static func sendSome(_ fd: Int32, _ bytes: [UInt8]) -> Int {
        bytes.withUnsafeBytes { raw in
            #if os(Linux)
            max(0, send(fd, raw.baseAddress, raw.count, Int32(MSG_NOSIGNAL)))
            #else
            max(0, send(fd, raw.baseAddress, raw.count, 0))
            #endif
        }
    }
}
