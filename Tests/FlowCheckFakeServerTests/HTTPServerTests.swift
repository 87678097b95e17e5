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

/// The real listener over loopback, driven by raw sockets so framing is checked byte by byte.
/// Every socket call and every `stop()` runs on a thread of its own, never on the pool.
@Suite(.integration, .timeLimit(.minutes(20)))
struct HTTPServerTests {
    /// Echoes method, path and body; `/big` answers with 5 MB.
    static let echo = ClosureResponder { request in
        if request.path == "/big" {
            return HTTPResponse(status: 200, body: Data(repeating: 0x61, count: 5 * 1024 * 1024))
        }
        return .text(200, "\(request.method) \(request.path) \(String(decoding: request.body, as: UTF8.self))")
    }

    /// `HTTPServerLimits.hangBounded` changed by `change`: a test about one limit.
    private static func limits(_ change: (inout HTTPServerLimits) -> Void) -> HTTPServerLimits {
        var limits = HTTPServerLimits.hangBounded
        change(&limits)
        return limits
    }

    /// Runs `body` against a started server with `limits`, given its port; stops it after.
    private func withServer(core: HTTPServer.Core, limits: HTTPServerLimits = .hangBounded, _ body: (HTTPServer, Int) async throws -> Void) async throws {
        let server = HTTPServer(responder: Self.echo, limits: limits, core: core)
        try await server.serving { port in try await body(server, port) }
    }

    @Test(arguments: HTTPServer.Core.available) func servesTwoRequestsOnOneKeptAliveConnection(core: HTTPServer.Core) async throws {
        try await withServer(core: core) { server, port in
            #expect(port > 0 && port == server.port)
            let client = try await RawConnection.connect(port: port)
            try await client.send("POST /one HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello")
            let first = try #require(try await client.readResponse())
            #expect(first.status == 200)
            #expect(first.bodyText == "POST /one hello")
            #expect(first.header("Content-Length") == "15")
            #expect(first.header("Connection") == "keep-alive")
            try await client.send("GET /two HTTP/1.1\r\nHost: x\r\n\r\n")
            let second = try #require(try await client.readResponse())
            #expect(second.bodyText == "GET /two ")
        }
    }

    @Test(arguments: HTTPServer.Core.available) func answersPipelinedRequestsInOrder(core: HTTPServer.Core) async throws {
        try await withServer(core: core) { server, port in
            let client = try await RawConnection.connect(port: port)
            try await client.send("GET /a HTTP/1.1\r\nHost: x\r\n\r\nGET /b HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            #expect(try await client.readResponse()?.bodyText == "GET /a ")
            let last = try #require(try await client.readResponse())
            #expect(last.bodyText == "GET /b ")
            #expect(last.header("Connection") == "close")
            #expect(try await client.readToEnd() == [])
        }
    }

    /// A long pipeline, sent in one write: the event core answers a connection's requests some
    /// at a time, letting other connections in between; every one is still answered, in order.
    @Test(arguments: HTTPServer.Core.available) func answersALongPipelineWholeAndInOrder(core: HTTPServer.Core) async throws {
        try await withServer(core: core) { server, port in
            let client = try await RawConnection.connect(port: port)
            try await client.send((0..<100).map { "GET /p\($0) HTTP/1.1\r\nHost: x\r\n\r\n" }.joined())
            for number in 0..<100 {
                #expect(try await client.readResponse()?.bodyText == "GET /p\(number) ")
            }
        }
    }

    @Test(arguments: [
        ("GET /c HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", true),
        ("GET /c HTTP/1.0\r\n\r\n", true),
        ("GET /c HTTP/1.0\r\nConnection: keep-alive\r\n\r\n", false),
        ("GET /c HTTP/1.1\r\nHost: x\r\nConnection: Keep-Alive\r\n\r\n", false),
    ], HTTPServer.Core.available)
    func honoursConnectionSemantics(_ case: (request: String, closes: Bool), core: HTTPServer.Core) async throws {
        let (request, closes) = `case`
        try await withServer(core: core) { server, port in
            let client = try await RawConnection.connect(port: port)
            try await client.send(request)
            let response = try #require(try await client.readResponse())
            #expect(response.bodyText == "GET /c ")
            #expect(response.header("Connection") == (closes ? "close" : "keep-alive"))
            if closes {
                #expect(try await client.readToEnd() == [])
            } else {
                try await client.send("GET /again HTTP/1.1\r\nHost: x\r\n\r\n")
                #expect(try await client.readResponse()?.bodyText == "GET /again ")
            }
        }
    }

    @Test(arguments: HTTPServer.Core.available) func malformedRequestGets400AndServerKeepsServing(core: HTTPServer.Core) async throws {
        try await withServer(core: core) { server, port in
            let bad = try await RawConnection.connect(port: port)
            try await bad.send("THIS IS NOT HTTP\r\n\r\n")
            let response = try #require(try await bad.readResponse())
            #expect(response.status == 400)
            #expect(response.header("Connection") == "close")
            #expect(try await bad.readToEnd() == [])
            let good = try await RawConnection.connect(port: port)
            try await good.send("GET /fine HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try await good.readResponse()?.status == 200)
        }
    }

    @Test(arguments: HTTPServer.Core.available) func garbageBytesNeverCrashTheServer(core: HTTPServer.Core) async throws {
        try await withServer(core: core) { server, port in
            let payloads: [[UInt8]] = [
                [0x00, 0xFF, 0x0D, 0x0A, 0x0D, 0x0A],
                Array("GET / HTTP/1.1\r\nHost: x\r\nContent-Length: -5\r\n\r\n".utf8),
                Array("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n".utf8),
                Array("GET / HTTP/9.9\r\nHost: x\r\n\r\n".utf8),
            ]
            let expected = [400, 400, 501, 505]
            for (payload, status) in zip(payloads, expected) {
                let client = try await RawConnection.connect(port: port)
                try await client.send(payload)
                #expect(try await client.readResponse()?.status == status)
            }
            let client = try await RawConnection.connect(port: port)
            try await client.send("GET /alive HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try await client.readResponse()?.bodyText == "GET /alive ")
        }
    }

    @Test(arguments: HTTPServer.Core.available) func oversizedHeadersGet431(core: HTTPServer.Core) async throws {
        try await withServer(core: core, limits: Self.limits { $0.maxHeaderBytes = 1024 }) { server, port in
            let client = try await RawConnection.connect(port: port)
            try await client.send("GET / HTTP/1.1\r\nHost: x\r\nX-Big: \(String(repeating: "b", count: 8 * 1024))\r\n\r\n")
            let response = try #require(try await client.readResponse())
            #expect(response.status == 431)
            #expect(response.header("Connection") == "close")
        }
    }

    @Test(arguments: HTTPServer.Core.available) func bodyOverTheLimitGets413(core: HTTPServer.Core) async throws {
        try await withServer(core: core, limits: Self.limits { $0.maxBodyBytes = 100 }) { server, port in
            let client = try await RawConnection.connect(port: port)
            try await client.send("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 101\r\n\r\n\(String(repeating: "z", count: 101))")
            #expect(try await client.readResponse()?.status == 413)
        }
    }

    @Test(arguments: HTTPServer.Core.available) func answersExpectContinueBeforeTheBody(core: HTTPServer.Core) async throws {
        try await withServer(core: core) { server, port in
            let client = try await RawConnection.connect(port: port)
            try await client.send("POST /e HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 4\r\n\r\n")
            #expect(try await client.readResponse()?.status == 100)
            try await client.send("body")
            #expect(try await client.readResponse()?.bodyText == "POST /e body")
        }
    }

    @Test(arguments: HTTPServer.Core.available) func headResponseCarriesLengthButNoBody(core: HTTPServer.Core) async throws {
        try await withServer(core: core) { server, port in
            let client = try await RawConnection.connect(port: port)
            try await client.send("HEAD /h HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            let raw = String(decoding: try #require(try await client.readToEnd()), as: UTF8.self)
            #expect(raw.hasPrefix("HTTP/1.1 200 OK\r\n"))
            #expect(raw.contains("Content-Length: 8\r\n"))
            #expect(raw.hasSuffix("\r\n\r\n"))
        }
    }

    @Test(arguments: HTTPServer.Core.available) func silentClientIsTimedOutWith408(core: HTTPServer.Core) async throws {
        try await withServer(core: core, limits: HTTPServerLimits(readTimeout: 0.2, idleTimeout: 0.2)) { server, port in
            // Sent as the connect completes: the server would close a connection still silent
            // after its 0.2 s idle timeout without a response.
            let client = try await RawConnection.connect(port: port, sending: "GET /slow HTTP/1.1\r\nHost: x\r\n")
            #expect(try await client.readResponse()?.status == 408)
            let idle = try await RawConnection.connect(port: port)
            #expect(try await idle.readToEnd() == [])
        }
    }

    @Test(arguments: HTTPServer.Core.available) func tricklingClientIsCutOffAtTheHeadDeadline(core: HTTPServer.Core) async throws {
        // Each byte comes well within readTimeout; only the whole-head deadline can stop it.
        try await withServer(core: core, limits: HTTPServerLimits(readTimeout: 10, requestHeaderTimeout: 0.5)) { _, port in
            let outcome = try await HTTPServerLoadTests.trickle("GET /slow HTTP/1.1\r\nHost: x\r\n\r\n", port: port)
            #expect(outcome.status == 408)
            #expect(outcome.bytesSent < outcome.requestLength)
        }
    }

    @Test(arguments: HTTPServer.Core.available) func idleKeptAliveConnectionIsClosedWithoutAResponse(core: HTTPServer.Core) async throws {
        try await withServer(core: core, limits: HTTPServerLimits(idleTimeout: 0.2)) { server, port in
            // Sent as the connect completes, within the 0.2 s a fresh connection may stay idle.
            let client = try await RawConnection.connect(port: port, sending: "GET /once HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try await client.readResponse()?.header("Connection") == "keep-alive")
            #expect(try await client.readToEnd() == [])
        }
    }

    @Test(arguments: HTTPServer.Core.available) func clientVanishingMidResponseDoesNotKillTheServer(core: HTTPServer.Core) async throws {
        try await withServer(core: core) { server, port in
            do {
                let quitter = try await RawConnection.connect(port: port)
                try await quitter.send("GET /big HTTP/1.1\r\nHost: x\r\n\r\n")
                let start = try #require(try await quitter.read(upTo: 16))
                #expect(!start.isEmpty)
                // Unread data at close makes the kernel send RST; the server's next sends fail.
            }
            let next = try await RawConnection.connect(port: port)
            try await next.send("GET /after HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try await next.readResponse()?.bodyText == "GET /after ")
            // stop() joins every connection thread, including the one whose peer vanished.
            await server.stopOffThePool()
        }
    }

    /// The peer's FIN arrives before the response, so the server's write fails with EPIPE:
    /// the case that raises SIGPIPE (and kills the process) without MSG_NOSIGNAL/SIG_IGN.
    @Test(arguments: HTTPServer.Core.available) func clientClosingBeforeTheResponseDoesNotKillTheServer(core: HTTPServer.Core) async throws {
        try await withServer(core: core) { server, port in
            for _ in 0..<3 {
                let quitter = try await RawConnection.connect(port: port)
                try await quitter.send("GET /big HTTP/1.1\r\nHost: x\r\n\r\n")
                quitter.close()
            }
            let next = try await RawConnection.connect(port: port)
            try await next.send("GET /after HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try await next.readResponse()?.bodyText == "GET /after ")
            await server.stopOffThePool()
        }
    }

    @Test(arguments: HTTPServer.Core.available) func refuseConnectionsThenAcceptAgainOnTheSamePort(core: HTTPServer.Core) async throws {
        try await withServer(core: core) { server, port in
            let kept = try await RawConnection.connect(port: port)
            try await kept.send("GET /before HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try await kept.readResponse()?.status == 200)

            try await Self.refuseConnections(server)
            #expect(try await RawConnection.connectError(port: port) == ECONNREFUSED)
            // The kept-alive connection was closed too: EOF or reset, never another response.
            let leftover = try await kept.readToEnd()
            #expect(leftover == nil || leftover == [])
            try await Self.refuseConnections(server)

            try server.acceptConnections()
            try server.acceptConnections()
            #expect(server.port == port)
            let again = try await RawConnection.connect(port: port)
            try await again.send("GET /after HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try await again.readResponse()?.bodyText == "GET /after ")
        }
    }

    /// A responder that stops its own server (serve's control API can): the server stops, the
    /// request that asked is left unanswered, nothing stays open, and no thread waits for
    /// itself (the event core runs the stop on its loop thread at once).
    @Test(arguments: HTTPServer.Core.available) func aResponderMayStopItsOwnServer(core: HTTPServer.Core) async throws {
        let box = Locked<HTTPServer?>(nil)
        let server = HTTPServer(responder: ClosureResponder { request in
            if request.path == "/stop" { box.withLock { $0 }?.stop() }
            return .text(200, request.path)
        }, limits: .hangBounded, core: core)
        box.withLock { $0 = server }
        defer { box.withLock { $0 = nil } }
        try await server.serving { port in
            let other = try await RawConnection.connect(port: port)
            try await other.send("GET /first HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try await other.readResponse()?.bodyText == "/first")
            let listening = OpenSockets.inodes(port: port, local: true)
            let asking = try await RawConnection.connect(port: port)
            try await asking.send("GET /stop HTTP/1.1\r\nHost: x\r\n\r\n")
            let answer = try await asking.readToEnd()
            #expect(answer == nil || answer == [], "no answer after the server stopped under it")
            let leftover = try await other.readToEnd()
            #expect(leftover == nil || leftover == [])
            #expect(OpenSockets.stillOpen(listening).isEmpty)
            #expect(throws: HTTPServerError.notRunning) { try server.acceptConnections() }
        }
    }

    @Test(arguments: HTTPServer.Core.available) func stopIsIdempotentAndFinal(core: HTTPServer.Core) async throws {
        try await withServer(core: core) { server, port in
            let open = try await RawConnection.connect(port: port)
            try await open.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try await open.readResponse()?.status == 200)
            let listening = OpenSockets.inodes(port: port, local: true)
            await server.stopOffThePool()
            await server.stopOffThePool()
            // Its listener and connection are closed. Not "connect is refused": the port is free
            // once stopped, and another test's server in this process may be given it at once.
            #expect(!listening.isEmpty)
            #expect(OpenSockets.stillOpen(listening).isEmpty)
            let leftover = try await open.readToEnd()
            #expect(leftover == nil || leftover == [])
            #expect(throws: HTTPServerError.notRunning) { try server.acceptConnections() }
            #expect(throws: HTTPServerError.alreadyStarted) { try server.start() }
            try await Self.refuseConnections(server)
        }
    }

    @Test(arguments: HTTPServer.Core.available) func stopBeforeStartIsHarmless(core: HTTPServer.Core) async {
        let server = HTTPServer(responder: Self.echo, core: core)
        await server.stopOffThePool()
        #expect(server.port == 0)
    }

    /// `refuseConnections()` waits for the accept thread to end: on a thread of its own.
    private static func refuseConnections(_ server: HTTPServer) async throws {
        try await offThePool("HTTPServer.refuseConnections") { server.refuseConnections() }
    }

    @Test(arguments: HTTPServer.Core.available) func responderHeadersCannotBreakFraming(core: HTTPServer.Core) async throws {
        let sneaky = ClosureResponder { _ in
            HTTPResponse(status: 200, headers: [("X-Evil", "a\r\nInjected: yes"), ("Content-Length", "999"), ("Connection", "close")], body: Data("ok".utf8))
        }
        try await HTTPServer(responder: sneaky, limits: .hangBounded, core: core).serving { port in
            let client = try await RawConnection.connect(port: port)
            try await client.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
            let response = try #require(try await client.readResponse())
            #expect(response.bodyText == "ok")
            #expect(response.header("Injected") == nil)
            #expect(response.header("X-Evil") == "a  Injected: yes")
            #expect(response.header("Connection") == "close")
            #expect(try await client.readToEnd() == [])
        }
    }
}
