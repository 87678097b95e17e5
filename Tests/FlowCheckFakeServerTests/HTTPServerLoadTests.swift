import Foundation
import Testing
import FlowCheckFakeServer
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Many kept-alive clients at once, plus one that trickles its head, over loopback.
///
/// Bounded in count (200 clients × 3 requests) and in time: the only waits are for the
/// server to act, each with a generous bound that a passing run never reaches.
struct HTTPServerLoadTests {
    static let clientCount = 200
    static let requestsPerClient = 3

    static let echo = ClosureResponder { request in
        .text(200, "\(request.method) \(request.path)")
    }

    /// What the trickling client saw.
    struct TrickleOutcome: Sendable {
        /// Status of the response that interrupted the trickle, if one arrived whole.
        var status: Int?
        /// How many bytes of the request had been sent when the server acted.
        var bytesSent: Int
        var requestLength: Int
    }

    /// Sends `request` one byte at a time, waiting up to a second for the server between
    /// bytes: a client at one byte per second, paced by waiting rather than sleeping.
    static func trickle(_ request: String, port: Int) -> TrickleOutcome {
        let bytes = Array(request.utf8)
        var outcome = TrickleOutcome(status: nil, bytesSent: 0, requestLength: bytes.count)
        guard let client = try? RawClient(port: port) else { return outcome }
        defer { client.close() }
        for byte in bytes {
            guard client.send([byte]) else { break }
            outcome.bytesSent += 1
            if client.isReadable(within: 1) { break }
        }
        outcome.status = client.readResponse()?.status
        return outcome
    }

    @Test func manyKeptAliveClientsAreServedATricklerIsCutOffAndNothingLeaks() throws {
        let limits = HTTPServerLimits(readTimeout: 10, requestHeaderTimeout: 1, idleTimeout: 30)
        let server = HTTPServer(responder: Self.echo, limits: limits)
        let port = try server.start()
        defer { server.stop() }
        #expect(OpenSockets.inodes(port: port, local: true).count == 1)

        let trickled = LockedValue<TrickleOutcome?>(nil)
        let trickler = DispatchGroup()
        trickler.enter()
        Thread {
            let outcome = Self.trickle("GET /slow HTTP/1.1\r\nHost: x\r\nX-Padding: trickle\r\n\r\n", port: port)
            trickled.withLock { $0 = outcome }
            trickler.leave()
        }.start()

        var clients: [RawClient] = []
        for _ in 0..<Self.clientCount {
            clients.append(try RawClient(port: port))
        }
        var answered = 0
        for round in 0..<Self.requestsPerClient {
            // Every client has a request in flight before any answer is read.
            for (index, client) in clients.enumerated() {
                client.send("GET /c\(index)/r\(round) HTTP/1.1\r\nHost: x\r\n\r\n")
            }
            for (index, client) in clients.enumerated() {
                let response = client.readResponse()
                #expect(response?.bodyText == "GET /c\(index)/r\(round)")
                #expect(response?.header("Connection") == "keep-alive")
                if response?.status == 200 { answered += 1 }
            }
        }
        #expect(answered == Self.clientCount * Self.requestsPerClient)

        // The listener and every accepted connection, and every client end, are open now.
        let serverSide = OpenSockets.inodes(port: port, local: true)
        let clientSide = OpenSockets.inodes(port: port, local: false)
        #expect(serverSide.count >= 1 + Self.clientCount)
        #expect(clientSide.count >= Self.clientCount)

        trickler.wait()
        let outcome = try #require(trickled.withLock { $0 })
        // The server acted long before the head was complete (it would take ~50 s at this
        // pace): with a 408, or at worst by closing.
        #expect(outcome.bytesSent < outcome.requestLength)
        #expect(outcome.status == 408 || outcome.status == nil)

        for client in clients {
            client.close()
        }
        server.stop()
        #expect(OpenSockets.stillOpen(serverSide.union(clientSide)).isEmpty)
        #expect(OpenSockets.inodes(port: port, local: true).isEmpty)
        #expect(OpenSockets.inodes(port: port, local: false).isEmpty)
    }
}
