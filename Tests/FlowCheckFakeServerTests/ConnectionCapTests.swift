import Foundation
import FlowCheckTestLanes
import Testing
@testable import FlowCheckFakeServer
import FlowCheckTestSupport

/// A listener at its connection cap closes its longest-idle connection for a newcomer; with none
/// idle, or unable to start a connection's thread, it answers 503 with `Retry-After` and closes:
/// nothing stays registered, no descriptor is left behind.
@Suite(.integration, .timeLimit(.minutes(20)))
struct ConnectionCapTests {
    static let echo = ClosureResponder { request in .text(200, "\(request.method) \(request.path)") }

    /// An echo server that takes three connections at once.
    static func cappedAtThree(core: HTTPServer.Core) -> HTTPServer {
        var limits = HTTPServerLimits.hangBounded
        limits.maxConnections = 3
        return HTTPServer(responder: echo, limits: limits, core: core)
    }

    /// `count` connections to `port`, opened in order, each having sent `text` (and, given a
    /// status, read its answer before the next one opens).
    static func connections(_ count: Int, to port: Int, sending text: String, answeredWith status: Int? = nil) async throws -> [RawConnection] {
        var clients: [RawConnection] = []
        for _ in 0..<count {
            let client = try await RawConnection.connect(port: port)
            try await client.send(text)
            if let status { #expect(try await client.readResponse()?.status == status) }
            clients.append(client)
        }
        return clients
    }

    @Test(arguments: HTTPServer.Core.available) func aNewConnectionAtTheCapClosesTheLongestIdleOneAndIsServed(core: HTTPServer.Core) async throws {
        try await Self.cappedAtThree(core: core).serving { port in
            // Three kept-alive connections, each answered once, in order: all three idle.
            var kept = try await Self.connections(3, to: port, sending: "GET /kept HTTP/1.1\r\nHost: x\r\n\r\n", answeredWith: 200)
            // Each newcomer is served, and the one idle longest is closed for it, oldest first.
            for index in 0..<3 {
                let extra = try await RawConnection.connect(port: port)
                try await extra.send("GET /new HTTP/1.1\r\nHost: x\r\n\r\n")
                #expect(try await extra.readResponse()?.status == 200, "served at the cap")
                #expect(try await kept[index].readUntilClosed().bytes.isEmpty, "the longest-idle connection (\(index)) is closed, unanswered")
                kept.append(extra)
            }
        }
    }

    @Test(arguments: HTTPServer.Core.available) func withNoneIdleConnectionsBeyondTheCapAre503AndClosed(core: HTTPServer.Core) async throws {
        let server = Self.cappedAtThree(core: core)
        try await server.serving { port in
            // Three connections in the middle of a request: none is idle.
            let busy = try await Self.connections(3, to: port, sending: "GET /slow HTTP/1.1\r\nHost: x\r\n")
            // Registered and read from (an accept and a read each tick the meter): busy, not idle.
            let deadline = ContinuousClock.now + HangBound.standard
            while server.activity.value < 6, ContinuousClock.now < deadline { await Task.yield() }
            for _ in 0..<5 {
                let extra = try await RawConnection.connect(port: port)
                let shed = try #require(try await extra.readResponse())
                #expect(shed.status == 503)
                #expect(shed.header("Retry-After") == "1")
                #expect(shed.header("Connection") == "close")
                #expect(try await extra.readUntilClosed().bytes.isEmpty, "closed after the 503")
            }
            #expect(server.openConnections == 3)
            // The busy ones are still served when they finish their requests.
            for client in busy {
                try await client.send("\r\n")
                #expect(try await client.readResponse()?.status == 200)
            }
        }
    }

    @Test(arguments: HTTPServer.Core.available) func aBodyTrickledPastItsDeadlineIs408(core: HTTPServer.Core) async throws {
        // Each silence is far within the read timeout; the whole body is not within its own.
        var limits = HTTPServerLimits.hangBounded
        limits.requestBodyTimeout = 0.5
        let server = HTTPServer(responder: Self.echo, limits: limits, core: core)
        try await server.serving { port in
            let client = try await RawConnection.connect(port: port)
            try await client.send("POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\nabc")
            let answer = try #require(try await client.readResponse())
            #expect(answer.status == 408)
            #expect(try await client.readUntilClosed().error == nil)
        }
    }

    @Test func aConnectionWhoseThreadCannotStartIsAnsweredClosedAndUnregistered() async throws {
        let server = HTTPServer(responder: Self.echo, limits: .hangBounded, startThread: { _ in false })
        try await server.serving { port in
            for _ in 0..<3 {
                let client = try await RawConnection.connect(port: port)
                #expect(try await client.readResponse()?.status == 503)
                #expect(try await client.readUntilClosed().bytes.isEmpty)
            }
            #expect(server.openConnections == 0)
        }
    }

    @Test(arguments: HTTPServer.Core.available) func stopEndsAServerAtItsCapPromptly(core: HTTPServer.Core) async throws {
        // The server's own timeouts outlast the clients' patience: only stop() can end the
        // idle connections before a client gives up.
        let never = 2 * HangBound.seconds
        let limits = HTTPServerLimits(readTimeout: never, requestHeaderTimeout: never, idleTimeout: never, maxConnections: 2)
        let server = HTTPServer(responder: Self.echo, limits: limits, core: core)
        try await server.serving { port in
            var idle: [RawConnection] = []
            for _ in 0..<12 {
                idle.append(try await RawConnection.connect(port: port))
            }
            await server.stopOffThePool()
            #expect(server.openConnections == 0)
            // Every one, served or shed, sees its connection end; readUntilClosed throws, naming
            // itself, if one has not ended within its patience.
            for client in idle {
                _ = try await client.readUntilClosed()
            }
        }
    }
}
