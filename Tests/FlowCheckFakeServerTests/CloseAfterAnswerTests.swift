import Foundation
import FlowCheckTestLanes
import Testing
@testable import FlowCheckFakeServer
import FlowCheckTestSupport

/// A client that says `Connection: close` sends nothing after its request (RFC 9112 9.6): once
/// that request is read whole and its answer acknowledged, the server closes without waiting
/// for the client's own close, and the answer is the client's, whole, whatever it sends after.
@Suite(.integration, .timeLimit(.minutes(20)))
struct CloseAfterAnswerTests {
    static let echo = ClosureResponder { request in
        request.path == "/big" ? .text(200, String(repeating: "x", count: 8 << 20)) : .text(200, "\(request.method) \(request.path)")
    }

    /// Timeouts no honest exchange reaches, the drain's too: nothing here ends by a deadline,
    /// so a server that waited for the client's close would keep its connections.
    static func patientServer(core: HTTPServer.Core, maxConnections: Int = 8) -> HTTPServer {
        let never = 2 * HangBound.seconds
        return HTTPServer(responder: echo, limits: HTTPServerLimits(readTimeout: never, requestHeaderTimeout: never, idleTimeout: never, requestBodyTimeout: never, responseTimeout: never, maxConnections: maxConnections, drainTimeout: never), core: core)
    }

    @Test(arguments: HTTPServer.Core.available) func aClientThatSaidCloseIsLetGoWhileItStillHoldsItsSocket(core: HTTPServer.Core) async throws {
        let server = Self.patientServer(core: core)
        try await server.serving { port in
            var clients: [RawConnection] = []
            for body in ["", "a=1&b=2"] {
                let client = try await RawConnection.connect(port: port)
                clients.append(client)
                let method = body.isEmpty ? "GET" : "POST"
                try await client.send("\(method) /closing HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
                let answer = try #require(try await client.readResponse())
                #expect(answer.status == 200)
                #expect(answer.header("Connection") == "close")
                #expect(String(decoding: answer.body, as: UTF8.self) == "\(method) /closing")
                let rest = try await client.readUntilClosed()
                #expect(rest.bytes.isEmpty && rest.error == nil, "an orderly end of stream, not a reset")
            }
            // Neither client has closed its socket; the server has let both connections go.
            let deadline = ContinuousClock.now + HangBound.standard
            while server.openConnections > 0, ContinuousClock.now < deadline { await Task.yield() }
            #expect(server.openConnections == 0)
            withExtendedLifetime(clients) {}
        }
    }

    @Test(arguments: HTTPServer.Core.available) func aStrayByteAfterTheServerLetGoCostsTheClientNothing(core: HTTPServer.Core) async throws {
        let server = Self.patientServer(core: core)
        try await server.serving { port in
            let client = try await RawConnection.connect(port: port)
            try await client.send("GET /first HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            let deadline = ContinuousClock.now + HangBound.standard
            while server.activity.value < 3 || server.openConnections > 0, ContinuousClock.now < deadline { await Task.yield() }
            #expect(server.openConnections == 0)
            // Sent to a closed socket before reading: the reset it provokes leaves the answer,
            // already received, to be read whole.
            _ = try await client.send("\r\n")
            let answer = try #require(try await client.readResponse())
            #expect(answer.status == 200)
            #expect(String(decoding: answer.body, as: UTF8.self) == "GET /first")
        }
    }

    @Test(arguments: HTTPServer.Core.available) func aClientThatSaidCloseAndSendsMoreStillGetsItsWholeAnswer(core: HTTPServer.Core) async throws {
        // A second request after `close` is the client's mistake; its first answer still
        // arrives whole (what it sent is drained, not left to reset the connection).
        try await Self.patientServer(core: core).serving { port in
            let client = try await RawConnection.connect(port: port)
            try await client.send("GET /first HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\nGET /second HTTP/1.1\r\nHost: x\r\n\r\n")
            let answer = try #require(try await client.readResponse())
            #expect(answer.status == 200)
            #expect(String(decoding: answer.body, as: UTF8.self) == "GET /first")
        }
    }

    /// A connection whose next request is already read is busy while its answer is written:
    /// at the cap, a newcomer is refused rather than given that connection's place.
    @Test(arguments: HTTPServer.Core.available) func aPipelinedConnectionIsNotClosedForANewcomer(core: HTTPServer.Core) async throws {
        let server = Self.patientServer(core: core, maxConnections: 1)
        try await server.serving { port in
            let pipelined = try await RawConnection.connect(port: port)
            // Two requests in one write, the first answered with more than the socket buffers
            // hold: its thread is writing it until the client reads.
            try await pipelined.send("GET /big HTTP/1.1\r\nHost: x\r\n\r\nGET /second HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try await pipelined.isReadable(within: HangBound.standard), "the first answer is under way")
            let newcomer = try await RawConnection.connect(port: port)
            try await newcomer.send("GET /new HTTP/1.1\r\nHost: x\r\n\r\n")
            let shed = try #require(try await newcomer.readResponse())
            #expect(shed.status == 503, "no connection is idle: the newcomer is refused")
            let big = try #require(try await pipelined.readResponse())
            #expect(big.status == 200 && big.body.count == 8 << 20)
            let second = try #require(try await pipelined.readResponse())
            #expect(String(decoding: second.body, as: UTF8.self) == "GET /second")
        }
    }
}
