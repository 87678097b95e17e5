import Foundation
import FlowCheckTestLanes
import Testing
@testable import FlowCheckFakeServer
import FlowCheckTestSupport

/// A listener at its connection cap, or unable to start a connection's thread, answers 503
/// with `Retry-After` and closes: nothing stays registered, no descriptor is left behind.
@Suite(.integration, .timeLimit(.minutes(20)))
struct ConnectionCapTests {
    static let echo = ClosureResponder { request in .text(200, "\(request.method) \(request.path)") }

    @Test func connectionsBeyondTheCapAre503AndClosedWhileTheOthersAreServed() async throws {
        var limits = HTTPServerLimits.hangBounded
        limits.maxConnections = 3
        let server = HTTPServer(responder: Self.echo, limits: limits)
        try await server.serving { port in
            // Three kept-alive connections, each answered once: all three are registered.
            var kept: [RawConnection] = []
            for _ in 0..<3 {
                kept.append(try await RawConnection.connect(port: port))
            }
            for client in kept {
                try await client.send("GET /kept HTTP/1.1\r\nHost: x\r\n\r\n")
                #expect(try await client.readResponse()?.status == 200)
            }
            for _ in 0..<5 {
                let extra = try await RawConnection.connect(port: port)
                let shed = try #require(try await extra.readResponse())
                #expect(shed.status == 503)
                #expect(shed.header("Retry-After") == "1")
                #expect(shed.header("Connection") == "close")
                #expect(try await extra.readUntilClosed().bytes.isEmpty, "closed after the 503")
            }
            #expect(server.openConnections == 3)
            // A slot freed is a slot served again.
            kept[0].close()
            var served = false
            let deadline = ContinuousClock.now + HangBound.standard
            while !served, ContinuousClock.now < deadline {
                let client = try await RawConnection.connect(port: port)
                try await client.send("GET /again HTTP/1.1\r\nHost: x\r\n\r\n")
                served = try await client.readResponse()?.status == 200
            }
            #expect(served, "a connection is served once one of the three has closed")
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

    @Test func stopEndsAServerAtItsCapPromptly() async throws {
        // The server's own timeouts outlast the clients' patience: only stop() can end the
        // idle connections before a client gives up.
        let never = 2 * HangBound.seconds
        let limits = HTTPServerLimits(readTimeout: never, requestHeaderTimeout: never, idleTimeout: never, maxConnections: 2)
        let server = HTTPServer(responder: Self.echo, limits: limits)
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
