import Foundation
import FlowCheckTestLanes
import Testing
@testable import FlowCheckFakeServer

/// A listener at its connection cap, or unable to start a connection's thread, answers 503
/// with `Retry-After` and closes: nothing stays registered, no descriptor is left behind.
@Suite(.integration, .timeLimit(.minutes(20)))
struct ConnectionCapTests {
    static let echo = ClosureResponder { request in .text(200, "\(request.method) \(request.path)") }

    @Test func connectionsBeyondTheCapAre503AndClosedWhileTheOthersAreServed() throws {
        let server = HTTPServer(responder: Self.echo, limits: HTTPServerLimits(maxConnections: 3))
        let port = try server.start()
        defer { server.stop() }
        // Three kept-alive connections, each answered once: all three are registered.
        let kept = try (0..<3).map { _ in try RawClient(port: port) }
        for client in kept {
            client.send("GET /kept HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(client.readResponse()?.status == 200)
        }
        for _ in 0..<5 {
            let extra = try RawClient(port: port)
            let shed = try #require(extra.readResponse())
            #expect(shed.status == 503)
            #expect(shed.header("Retry-After") == "1")
            #expect(shed.header("Connection") == "close")
            #expect(extra.readUntilClosed().bytes.isEmpty, "closed after the 503")
        }
        #expect(server.openConnections == 3)
        // A slot freed is a slot served again.
        kept[0].close()
        var served = false
        let deadline = ContinuousClock.now + .seconds(20)
        while !served, ContinuousClock.now < deadline {
            let client = try RawClient(port: port)
            client.send("GET /again HTTP/1.1\r\nHost: x\r\n\r\n")
            served = client.readResponse()?.status == 200
        }
        #expect(served, "a connection is served once one of the three has closed")
    }

    @Test func aConnectionWhoseThreadCannotStartIsAnsweredClosedAndUnregistered() throws {
        let server = HTTPServer(responder: Self.echo, limits: HTTPServerLimits(), startThread: { _ in false })
        let port = try server.start()
        defer { server.stop() }
        for _ in 0..<3 {
            let client = try RawClient(port: port)
            #expect(client.readResponse()?.status == 503)
            #expect(client.readUntilClosed().bytes.isEmpty)
        }
        #expect(server.openConnections == 0)
    }

    @Test func stopEndsAServerAtItsCapPromptly() throws {
        let server = HTTPServer(responder: Self.echo, limits: HTTPServerLimits(maxConnections: 2))
        let port = try server.start()
        let idle = try (0..<12).map { _ in try RawClient(port: port) }
        server.stop()
        #expect(server.openConnections == 0)
        // Every one, served or shed, sees its connection end: RawClient records an issue if
        // not within its patience (20 s, inside the idle connections' 30 s idle timeout).
        for client in idle {
            _ = client.readUntilClosed()
        }
    }
}
