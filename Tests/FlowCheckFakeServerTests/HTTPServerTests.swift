import Foundation
import FlowCheckTestLanes
import Testing
import FlowCheckFakeServer
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The real listener over loopback, driven by raw sockets so framing is checked byte by byte.
@Suite(.integration, .timeLimit(.minutes(20)))
struct HTTPServerTests {
    /// Echoes method, path and body; `/big` answers with 5 MB.
    static let echo = ClosureResponder { request in
        if request.path == "/big" {
            return HTTPResponse(status: 200, body: Data(repeating: 0x61, count: 5 * 1024 * 1024))
        }
        return .text(200, "\(request.method) \(request.path) \(String(decoding: request.body, as: UTF8.self))")
    }

    private func startServer(limits: HTTPServerLimits = .init()) throws -> (HTTPServer, Int) {
        let server = HTTPServer(responder: Self.echo, limits: limits)
        let port = try server.start()
        return (server, port)
    }

    @Test func servesTwoRequestsOnOneKeptAliveConnection() throws {
        let (server, port) = try startServer()
        defer { server.stop() }
        #expect(port > 0 && port == server.port)
        let client = try RawClient(port: port)
        client.send("POST /one HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello")
        let first = try #require(client.readResponse())
        #expect(first.status == 200)
        #expect(first.bodyText == "POST /one hello")
        #expect(first.header("Content-Length") == "15")
        #expect(first.header("Connection") == "keep-alive")
        client.send("GET /two HTTP/1.1\r\nHost: x\r\n\r\n")
        let second = try #require(client.readResponse())
        #expect(second.bodyText == "GET /two ")
    }

    @Test func answersPipelinedRequestsInOrder() throws {
        let (server, port) = try startServer()
        defer { server.stop() }
        let client = try RawClient(port: port)
        client.send("GET /a HTTP/1.1\r\nHost: x\r\n\r\nGET /b HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        #expect(client.readResponse()?.bodyText == "GET /a ")
        let last = try #require(client.readResponse())
        #expect(last.bodyText == "GET /b ")
        #expect(last.header("Connection") == "close")
        #expect(client.readToEnd() == [])
    }

    @Test(arguments: [
        ("GET /c HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", true),
        ("GET /c HTTP/1.0\r\n\r\n", true),
        ("GET /c HTTP/1.0\r\nConnection: keep-alive\r\n\r\n", false),
        ("GET /c HTTP/1.1\r\nHost: x\r\nConnection: Keep-Alive\r\n\r\n", false),
    ])
    func honoursConnectionSemantics(request: String, closes: Bool) throws {
        let (server, port) = try startServer()
        defer { server.stop() }
        let client = try RawClient(port: port)
        client.send(request)
        let response = try #require(client.readResponse())
        #expect(response.bodyText == "GET /c ")
        #expect(response.header("Connection") == (closes ? "close" : "keep-alive"))
        if closes {
            #expect(client.readToEnd() == [])
        } else {
            client.send("GET /again HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(client.readResponse()?.bodyText == "GET /again ")
        }
    }

    @Test func malformedRequestGets400AndServerKeepsServing() throws {
        let (server, port) = try startServer()
        defer { server.stop() }
        let bad = try RawClient(port: port)
        bad.send("THIS IS NOT HTTP\r\n\r\n")
        let response = try #require(bad.readResponse())
        #expect(response.status == 400)
        #expect(response.header("Connection") == "close")
        #expect(bad.readToEnd() == [])
        let good = try RawClient(port: port)
        good.send("GET /fine HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(good.readResponse()?.status == 200)
    }

    @Test func garbageBytesNeverCrashTheServer() throws {
        let (server, port) = try startServer()
        defer { server.stop() }
        let payloads: [[UInt8]] = [
            [0x00, 0xFF, 0x0D, 0x0A, 0x0D, 0x0A],
            Array("GET / HTTP/1.1\r\nHost: x\r\nContent-Length: -5\r\n\r\n".utf8),
            Array("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n".utf8),
            Array("GET / HTTP/9.9\r\nHost: x\r\n\r\n".utf8),
        ]
        let expected = [400, 400, 501, 505]
        for (payload, status) in zip(payloads, expected) {
            let client = try RawClient(port: port)
            client.send(payload)
            #expect(client.readResponse()?.status == status)
        }
        let client = try RawClient(port: port)
        client.send("GET /alive HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(client.readResponse()?.bodyText == "GET /alive ")
    }

    @Test func oversizedHeadersGet431() throws {
        let (server, port) = try startServer(limits: HTTPServerLimits(maxHeaderBytes: 1024))
        defer { server.stop() }
        let client = try RawClient(port: port)
        client.send("GET / HTTP/1.1\r\nHost: x\r\nX-Big: \(String(repeating: "b", count: 8 * 1024))\r\n\r\n")
        let response = try #require(client.readResponse())
        #expect(response.status == 431)
        #expect(response.header("Connection") == "close")
    }

    @Test func bodyOverTheLimitGets413() throws {
        let (server, port) = try startServer(limits: HTTPServerLimits(maxBodyBytes: 100))
        defer { server.stop() }
        let client = try RawClient(port: port)
        client.send("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 101\r\n\r\n\(String(repeating: "z", count: 101))")
        #expect(client.readResponse()?.status == 413)
    }

    @Test func answersExpectContinueBeforeTheBody() throws {
        let (server, port) = try startServer()
        defer { server.stop() }
        let client = try RawClient(port: port)
        client.send("POST /e HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 4\r\n\r\n")
        #expect(client.readResponse()?.status == 100)
        client.send("body")
        #expect(client.readResponse()?.bodyText == "POST /e body")
    }

    @Test func headResponseCarriesLengthButNoBody() throws {
        let (server, port) = try startServer()
        defer { server.stop() }
        let client = try RawClient(port: port)
        client.send("HEAD /h HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        let raw = String(decoding: try #require(client.readToEnd()), as: UTF8.self)
        #expect(raw.hasPrefix("HTTP/1.1 200 OK\r\n"))
        #expect(raw.contains("Content-Length: 8\r\n"))
        #expect(raw.hasSuffix("\r\n\r\n"))
    }

    @Test func silentClientIsTimedOutWith408() throws {
        let (server, port) = try startServer(limits: HTTPServerLimits(readTimeout: 0.2, idleTimeout: 0.2))
        defer { server.stop() }
        let client = try RawClient(port: port)
        client.send("GET /slow HTTP/1.1\r\nHost: x\r\n")
        #expect(client.readResponse()?.status == 408)
        let idle = try RawClient(port: port)
        #expect(idle.readToEnd() == [])
    }

    @Test func tricklingClientIsCutOffAtTheHeadDeadline() throws {
        // Each byte comes well within readTimeout; only the whole-head deadline can stop it.
        let (server, port) = try startServer(limits: HTTPServerLimits(readTimeout: 10, requestHeaderTimeout: 0.5))
        defer { server.stop() }
        let outcome = HTTPServerLoadTests.trickle("GET /slow HTTP/1.1\r\nHost: x\r\n\r\n", port: port)
        #expect(outcome.status == 408)
        #expect(outcome.bytesSent < outcome.requestLength)
    }

    @Test func idleKeptAliveConnectionIsClosedWithoutAResponse() throws {
        let (server, port) = try startServer(limits: HTTPServerLimits(idleTimeout: 0.2))
        defer { server.stop() }
        let client = try RawClient(port: port)
        client.send("GET /once HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(client.readResponse()?.header("Connection") == "keep-alive")
        #expect(client.readToEnd() == [])
    }

    @Test func clientVanishingMidResponseDoesNotKillTheServer() throws {
        let (server, port) = try startServer()
        defer { server.stop() }
        do {
            let quitter = try RawClient(port: port)
            quitter.send("GET /big HTTP/1.1\r\nHost: x\r\n\r\n")
            let start = try #require(quitter.read(upTo: 16))
            #expect(!start.isEmpty)
            // Unread data at close makes the kernel send RST; the server's next sends fail.
        }
        let next = try RawClient(port: port)
        next.send("GET /after HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(next.readResponse()?.bodyText == "GET /after ")
        // stop() joins every connection thread, including the one whose peer vanished.
        server.stop()
    }

    /// The peer's FIN arrives before the response, so the server's write fails with EPIPE:
    /// the case that raises SIGPIPE (and kills the process) without MSG_NOSIGNAL/SIG_IGN.
    @Test func clientClosingBeforeTheResponseDoesNotKillTheServer() throws {
        let (server, port) = try startServer()
        defer { server.stop() }
        for _ in 0..<3 {
            let quitter = try RawClient(port: port)
            quitter.send("GET /big HTTP/1.1\r\nHost: x\r\n\r\n")
            quitter.close()
        }
        let next = try RawClient(port: port)
        next.send("GET /after HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(next.readResponse()?.bodyText == "GET /after ")
        server.stop()
    }

    @Test func refuseConnectionsThenAcceptAgainOnTheSamePort() throws {
        let (server, port) = try startServer()
        defer { server.stop() }
        let kept = try RawClient(port: port)
        kept.send("GET /before HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(kept.readResponse()?.status == 200)

        server.refuseConnections()
        #expect(RawClient.connectError(port: port) == ECONNREFUSED)
        // The kept-alive connection was closed too: EOF or reset, never another response.
        let leftover = kept.readToEnd()
        #expect(leftover == nil || leftover == [])
        server.refuseConnections()

        try server.acceptConnections()
        try server.acceptConnections()
        #expect(server.port == port)
        let again = try RawClient(port: port)
        again.send("GET /after HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(again.readResponse()?.bodyText == "GET /after ")
    }

    @Test func stopIsIdempotentAndFinal() throws {
        let (server, port) = try startServer()
        let open = try RawClient(port: port)
        open.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(open.readResponse()?.status == 200)
        server.stop()
        server.stop()
        #expect(RawClient.connectError(port: port) == ECONNREFUSED)
        let leftover = open.readToEnd()
        #expect(leftover == nil || leftover == [])
        #expect(throws: HTTPServerError.notRunning) { try server.acceptConnections() }
        #expect(throws: HTTPServerError.alreadyStarted) { try server.start() }
        server.refuseConnections()
    }

    @Test func stopBeforeStartIsHarmless() {
        let server = HTTPServer(responder: Self.echo)
        server.stop()
        #expect(server.port == 0)
    }

    @Test func responderHeadersCannotBreakFraming() throws {
        let sneaky = ClosureResponder { _ in
            HTTPResponse(status: 200, headers: [("X-Evil", "a\r\nInjected: yes"), ("Content-Length", "999"), ("Connection", "close")], body: Data("ok".utf8))
        }
        let server = HTTPServer(responder: sneaky)
        let port = try server.start()
        defer { server.stop() }
        let client = try RawClient(port: port)
        client.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        let response = try #require(client.readResponse())
        #expect(response.bodyText == "ok")
        #expect(response.header("Injected") == nil)
        #expect(response.header("X-Evil") == "a  Injected: yes")
        #expect(response.header("Connection") == "close")
        #expect(client.readToEnd() == [])
    }
}
