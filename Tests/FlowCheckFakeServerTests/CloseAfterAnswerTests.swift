import Foundation
import FlowCheckTestLanes
import Testing
@testable import FlowCheckFakeServer
import FlowCheckTestSupport

/// A client that says `Connection: close` sends nothing after its request (RFC 9112 9.6): once
/// that request is read whole and answered, the server closes without waiting for the client's
/// own close, and the answer arrives whole, ended by an orderly end of stream, never a reset.
@Suite(.integration, .timeLimit(.minutes(20)))
struct CloseAfterAnswerTests {
    static let echo = ClosureResponder { request in .text(200, "\(request.method) \(request.path)") }

    /// Timeouts no honest exchange reaches: nothing here ends by a deadline.
    static func patientServer() -> HTTPServer {
        let never = 2 * HangBound.seconds
        return HTTPServer(responder: echo, limits: HTTPServerLimits(readTimeout: never, requestHeaderTimeout: never, idleTimeout: never, maxConnections: 8))
    }

    @Test func aClientThatSaidCloseGetsItsWholeAnswerAndAnOrderlyEnd() async throws {
        let server = Self.patientServer()
        try await server.serving { port in
            for body in ["", "a=1&b=2"] {
                let client = try await RawConnection.connect(port: port)
                let method = body.isEmpty ? "GET" : "POST"
                try await client.send("\(method) /closing HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
                let answer = try #require(try await client.readResponse())
                #expect(answer.status == 200)
                #expect(answer.header("Connection") == "close")
                #expect(String(decoding: answer.body, as: UTF8.self) == "\(method) /closing")
                let rest = try await client.readUntilClosed()
                #expect(rest.bytes.isEmpty && rest.error == nil, "an orderly end of stream, not a reset")
            }
            // The client still holds its socket open; the server has let the connection go.
            let deadline = ContinuousClock.now + HangBound.standard
            while server.openConnections > 0, ContinuousClock.now < deadline { await Task.yield() }
            #expect(server.openConnections == 0)
        }
    }

    @Test func aClientThatSaidCloseAndSendsMoreStillGetsItsWholeAnswer() async throws {
        // A second request after `close` is the client's mistake; its first answer still
        // arrives whole (what it sent is drained, not left to reset the connection).
        try await Self.patientServer().serving { port in
            let client = try await RawConnection.connect(port: port)
            try await client.send("GET /first HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\nGET /second HTTP/1.1\r\nHost: x\r\n\r\n")
            let answer = try #require(try await client.readResponse())
            #expect(answer.status == 200)
            #expect(String(decoding: answer.body, as: UTF8.self) == "GET /first")
            try await client.send(String(repeating: "x", count: 4096))
            let rest = try await client.readUntilClosed()
            #expect(rest.bytes.isEmpty, "nothing answers the request sent after close")
        }
    }
}
