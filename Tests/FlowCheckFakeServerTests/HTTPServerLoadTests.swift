import Foundation
import FlowCheckTestLanes
import Testing
import FlowCheckFakeServer
import FlowCheckTestSupport
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Many kept-alive clients at once, plus one that trickles its head, over loopback.
///
/// Bounded in count (200 clients × 3 requests) and in time: the only waits are for the
/// server to act, each bounded by `HangBound.standard`, which a passing run never reaches.
@Suite(.integration, .timeLimit(.minutes(20)))
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

    /// Sends `request` one byte at a time, waiting up to 5 s for the server's answer between
    /// bytes: a slow client, paced by waiting rather than sleeping.
    static func trickle(_ request: String, port: Int) async throws -> TrickleOutcome {
        let bytes = Array(request.utf8)
        // The first byte goes as the connect completes, on the connect's own thread: sent
        // later, by this task once the pool runs it again, a loaded test process could keep it
        // back past the server's idle timeout, and the server would close an idle connection
        // without an answer (status nil with no byte sent, 1 of 3 loaded runs).
        let client = try await RawConnection.connect(port: port, sending: String(decoding: bytes.prefix(1), as: UTF8.self))
        defer { client.close() }
        var outcome = TrickleOutcome(status: nil, bytesSent: 1, requestLength: bytes.count)
        for byte in bytes.dropFirst() {
            if try await client.isReadable(within: .seconds(5)) { break }
            // The server's answer (a 408) may already wait: a byte sent after it closed would
            // draw a reset that throws the answer away, so look before each send, on the
            // send's own thread (two calls could be seconds apart under load).
            guard try await client.sendUnlessReadable([byte]) == .sent else { break }
            outcome.bytesSent += 1
        }
        outcome.status = try await client.readResponse()?.status
        return outcome
    }

    /// 200 kept-alive clients make 3 requests each while one more client holds a connection
    /// with a half-sent head, adding one byte per round: everyone else is served meanwhile,
    /// the slow client is answered once its head is complete, and after `stop()` no socket
    /// of the server's is left (the listener's own count is the baseline).
    ///
    /// The trickler is paced by the rounds of the others, not by the clock: one byte per
    /// round of 200 requests is far slower than the others, and the test waits for nothing
    /// but answers. That the server cuts off a head that never completes, which takes real
    /// time, is `HTTPServerTests.tricklingClientIsCutOffAtTheHeadDeadline`.
    @Test(arguments: HTTPServer.Core.available) func manyKeptAliveClientsAreServedWhileOneTricklesItsHead(core: HTTPServer.Core) async throws {
        // Deadlines far beyond the test, so the trickler stays attached throughout: beyond the
        // suite's 20-minute limit too, which is the hang detector here. The trickler's head
        // spans the whole test, and `hangBounded`'s 300 s head deadline cut it off in a loaded
        // run that took 439 s (a fresh clone's CI build and 16 busy loops beside it).
        let hour: TimeInterval = 3600
        let limits = HTTPServerLimits(readTimeout: hour, requestHeaderTimeout: hour, idleTimeout: hour, requestBodyTimeout: hour, responseTimeout: hour)
        let server = HTTPServer(responder: Self.echo, limits: limits, core: core)
        try await server.serving { port in
            let baseline = OpenSockets.inodes(port: port, local: true)
            #expect(baseline.count == 1, "the listener alone")

            // Connected first: accept order is connect order, so once any later client has been
            // answered, the server has taken this one on too.
            let head = Array("GET /slow HTTP/1.1\r\nHost: x\r\nX-Padding: trickle\r\n\r\n".utf8)
            let trickler = try await RawConnection.connect(port: port)
            var sent = 0
            func trickleOneByte() async throws {
                #expect(try await trickler.send([head[sent]]))
                sent += 1
            }
            try await trickleOneByte()

            var clients: [RawConnection] = []
            for _ in 0..<Self.clientCount {
                clients.append(try await RawConnection.connect(port: port))
            }
            var answered = 0
            for round in 0..<Self.requestsPerClient {
                try await trickleOneByte()
                // Every client has a request in flight before any answer is read.
                for (index, client) in clients.enumerated() {
                    try await client.send("GET /c\(index)/r\(round) HTTP/1.1\r\nHost: x\r\n\r\n")
                }
                // A server that waited on the slow client would answer nobody (until its own read
                // timeout let the slow client go): fail here, naming why, not in the first read.
                try #require(try await clients[0].isReadable(within: HangBound.standard), "no answer while the slow client holds its connection")
                for (index, client) in clients.enumerated() {
                    let response = try await client.readResponse()
                    #expect(response?.bodyText == "GET /c\(index)/r\(round)")
                    #expect(response?.header("Connection") == "keep-alive")
                    if response?.status == 200 { answered += 1 }
                }
                // Still connected, still unanswered: its head is not complete, and nobody waited
                // for it. (Readable would mean an answer or a close.)
                #expect(!(try await trickler.isReadable(within: .zero)), "the slow client was answered or dropped in round \(round)")
            }
            #expect(answered == Self.clientCount * Self.requestsPerClient)
            #expect(sent == 1 + Self.requestsPerClient && sent < head.count)

            // The listener, every accepted connection and every client end are open now.
            let serverSide = OpenSockets.inodes(port: port, local: true)
            let clientSide = OpenSockets.inodes(port: port, local: false)
            #expect(serverSide.count == 1 + Self.clientCount + 1)
            #expect(clientSide.count == Self.clientCount + 1)

            // Its head complete at last, the slow client is served like any other.
            #expect(try await trickler.send(Array(head[sent...])))
            #expect(try await trickler.readResponse()?.bodyText == "GET /slow")

            for client in clients {
                client.close()
            }
            trickler.close()
            await server.stopOffThePool()
            // Every socket this test saw is gone. Not "nothing on the port": once stopped, the
            // port is free, and another test's server in this process may be given it at once
            // (a client of that server then shows with this remote port).
            #expect(OpenSockets.stillOpen(serverSide.union(clientSide)).isEmpty)
        }
    }

    /// A stopping server resets its kept-alive connections instead of closing them politely:
    /// the side that closes first politely keeps a TIME_WAIT entry on the port for 60 s, and
    /// with a server per flow thousands of them slowed every later bind(0) (flows/s fell from
    /// 366 to 269 between 1,000 and 10,000 flows before this).
    @Test(arguments: HTTPServer.Core.available) func stopLeavesNoTimeWaitOnItsPort(core: HTTPServer.Core) async throws {
        let server = HTTPServer(responder: Self.echo, limits: .hangBounded, core: core)
        try await server.serving { port in
            var clients: [RawConnection] = []
            for _ in 0..<20 {
                clients.append(try await RawConnection.connect(port: port))
            }
            for (index, client) in clients.enumerated() {
                try await client.send("GET /k\(index) HTTP/1.1\r\nHost: x\r\n\r\n")
                #expect(try await client.readResponse()?.status == 200)
            }
            await server.stopOffThePool()
            // The clients close after the server, so any TIME_WAIT on this port is the server's.
            for client in clients {
                client.close()
            }
            #expect(OpenSockets.timeWaitCount(localPort: port) == 0)
        }
    }
}
