import Foundation
import FlowCheckTestLanes
import Testing
@testable import FlowCheckFakeServer
import FlowCheckTestSupport
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where the event core once behaved differently from the threaded core, as two reviews of it
/// found (each test failed on the event core before its fix). The threaded core is the
/// reference; every test runs on each core its premise allows.
@Suite(.integration, .timeLimit(.minutes(20)))
struct EventCoreReviewTests {
    /// Echoes method and path; `/big` answers with 32 MB, more than loopback's socket buffers.
    static let echo = ClosureResponder { request in
        if request.path == "/big" {
            return HTTPResponse(status: 200, body: Data(repeating: 0x61, count: 32 * 1024 * 1024))
        }
        return .text(200, "\(request.method) \(request.path)")
    }

    /// A responder that, for `/slow`, signals `entered` and waits for `release` (bounded by the
    /// hang bound) before it answers; any other path it answers at once with the path.
    static func slowResponder() -> (responder: ClosureResponder, entered: DispatchSemaphore, release: DispatchSemaphore) {
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let slow = ClosureResponder { request in
            guard request.path == "/slow" else { return .text(200, request.path) }
            entered.signal()
            _ = release.wait(timeout: .now() + .seconds(Int(HangBound.seconds)))
            return .text(200, "late")
        }
        return (slow, entered, release)
    }

    /// A connection to `port` whose `/slow` request the slow responder has entered (it holds
    /// it until `release` is signalled).
    static func slowRequest(port: Int, entered: DispatchSemaphore) async throws -> RawConnection {
        let connection = try await RawConnection.connect(port: port)
        try await connection.send("GET /slow HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(try await offThePool("slow responder entered") { entered.wait(timeout: .now() + .seconds(Int(HangBound.seconds))) == .success })
        return connection
    }

    /// A pipelined request already begun gets "its own full deadline from now", now being when
    /// the previous answer has been written (HTTPConnection.run). The event core once started
    /// that deadline when it *began* writing the answer, so a client that read a large answer
    /// slowly had its next, pipelined request refused 408 the moment the answer was through.
    @Test(arguments: HTTPServer.Core.available) func aPipelinedHeadGetsItsFullDeadlineAfterASlowlyReadAnswer(core: HTTPServer.Core) async throws {
        var limits = HTTPServerLimits.hangBounded
        // Far above what the client still does once the server has written the answer (read
        // what the socket buffers hold, send a line), even on a loaded machine: a first version
        // with 2 s failed under a full loaded test run.
        limits.requestHeaderTimeout = 10
        let server = HTTPServer(responder: Self.echo, limits: limits, core: core)
        try await server.serving { port in
            let client = try await RawConnection.connect(port: port)
            // The first request whole, the second begun.
            try await client.send("GET /big HTTP/1.1\r\nHost: x\r\n\r\nGET /next HTTP/1.1\r\n")
            // The scenario, not a synchronisation: a slow reader, which starts on its answer
            // only after longer than the head deadline (well within read and response timeouts).
            try await Task.sleep(for: .seconds(15))
            let big = try #require(try await client.readResponse())
            #expect(big.status == 200 && big.body.count == 32 * 1024 * 1024)
            // The rest of the second request's head, at once after the first answer.
            try await client.send("Host: x\r\n\r\n")
            let next = try #require(try await client.readResponse())
            #expect(next.status == 200, "the pipelined request is served, not refused \(next.status)")
            #expect(next.bodyText == "GET /next")
        }
    }

    /// A responder that takes long (a slow observer, a responder waiting on something of its
    /// own) holds up only its own connection on the threaded core, and only its own server on
    /// an event loop of its own. (The fakes' shared loop is held up by design: their
    /// responders never wait.)
    @Test(arguments: HTTPServer.Core.available.filter { $0 != .sharedEvents }) func aSlowResponderHoldsUpNoOtherServer(core: HTTPServer.Core) async throws {
        let (slow, entered, release) = Self.slowResponder()
        let blocked = HTTPServer(responder: slow, limits: .hangBounded, core: core)
        let other = HTTPServer(responder: Self.echo, limits: .hangBounded, core: core)
        try await blocked.serving { blockedPort in
            try await other.serving { otherPort in
                // The slow responder is running.
                let first = try await Self.slowRequest(port: blockedPort, entered: entered)
                defer {
                    release.signal()
                    first.close()
                }
                // Patience far above an honest answer's time, far below the responder's.
                let client = try await RawConnection.connect(port: otherPort, patience: .seconds(30))
                try await client.send("GET /quick HTTP/1.1\r\nHost: x\r\n\r\n")
                let answer = try await client.readResponse()
                #expect(answer?.status == 200, "another server answers while one responder is slow")
            }
        }
    }

    /// `stop()` from another thread while one of the server's responders is slow: the listener
    /// is shut down at once (stop returns after its 10 s wait for the busy thread or loop), so
    /// connects are refused. The event core once handed all of it to the busy loop and returned
    /// after 10 s having closed nothing: the port still accepted.
    @Test(arguments: HTTPServer.Core.available.filter { $0 != .sharedEvents }) func stopWhileAResponderIsSlowClosesTheListener(core: HTTPServer.Core) async throws {
        let (slow, entered, release) = Self.slowResponder()
        let server = HTTPServer(responder: slow, limits: .hangBounded, core: core)
        try await server.serving { port in
            let first = try await Self.slowRequest(port: port, entered: entered)
            defer {
                release.signal()
                first.close()
            }
            await server.stopOffThePool()
            #expect(try await RawConnection.connectError(port: port, patience: .seconds(30)) == ECONNREFUSED, "stop() returned: the port refuses")
        }
    }

    /// `stop()` from inside a held request's answer (here from the provider's observer, which
    /// the answer calls): the threaded core shuts the connection down and its thread fails the
    /// write on its own descriptor. The event core once closed the descriptor in stop() and
    /// then, back in answerHeld, wrote the answer to that descriptor number and closed it again:
    /// whatever the number named by then (here sockets opened meanwhile).
    @Test(.serialized, arguments: HTTPServer.Core.available) func stopInsideAHeldAnswerTouchesNoOtherDescriptor(core: HTTPServer.Core) async throws {
        let serverBox = Locked<HTTPServer?>(nil)
        let opened = Locked<[Int32]>([])
        let held = DispatchSemaphore(value: 0)
        let ended = DispatchSemaphore(value: 0)
        let moltin = FakeMoltin(fixture: MoltinFixture(clients: [.init(id: "id", secret: "secret")]))
        let chain = ProviderResponder(
            provider: moltin, now: { Date(timeIntervalSince1970: 1_700_000_000) },
            observer: { exchange in
                guard exchange.request.path == "/v1/products", opened.withLock({ $0.isEmpty }) else { return }
                serverBox.withLock { $0 }?.stop()
                // Descriptors opened now take the lowest free numbers: those stop() just freed.
                var fds: [Int32] = []
                for _ in 0..<16 { fds.append(socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)) }
                opened.withLock { $0 = fds }
            },
            holdObserver: { _, _ in held.signal() },
            holdEndObserver: { _ in ended.signal() })
        chain.inject(Fault(.hold, path: "/v1/products", times: 1))
        let server = HTTPServer(responder: chain, limits: .hangBounded, core: core)
        serverBox.withLock { $0 = server }
        defer { serverBox.withLock { $0 = nil } }
        try await server.serving { port in
            let client = try await RawConnection.connect(port: port)
            try await client.send("GET /v1/products HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try await offThePool("held") { held.wait(timeout: .now() + .seconds(Int(HangBound.seconds))) == .success })
            #expect(chain.releaseHold(0))
            // The connection is done with (the threaded core tells after its failed write)...
            #expect(try await offThePool("hold ended") { ended.wait(timeout: .now() + .seconds(Int(HangBound.seconds))) == .success })
            _ = try await client.readUntilClosed()
            // ...and on Linux the loop has finished the work that released the hold.
            _ = try await offThePool("loop barrier") { server.settle() }
            let fds = opened.withLock { $0 }
            #expect(fds.count == 16)
            let closedUnderUs = fds.filter { fcntl($0, F_GETFD) == -1 }
            #expect(closedUnderUs.isEmpty, "descriptors the test opened were closed by the server (\(core)): \(closedUnderUs)")
            for fd in fds where !closedUnderUs.contains(fd) { close(fd) }
        }
    }

    /// `refuseConnections()` while a responder holds the server's loop: it shuts the listener
    /// down, gives up after its 10 s wait and leaves its closing queued. The
    /// `acceptConnections()` that follows (FakeProviderServer.clearFaults) opens a new
    /// listener. The stale closing once closed that new listener (leaking the old), and the
    /// new one's own `listen(on:)` closed it a second time: the server said it was listening
    /// and refused every connect. It listens again now, as the threaded core does.
    @Test(arguments: HTTPServer.Core.available.filter { $0 != .sharedEvents }) func acceptAfterARefuseThatWaitedOnABusyLoopListensAgain(core: HTTPServer.Core) async throws {
        let (responder, entered, release) = Self.slowResponder()
        let server = HTTPServer(responder: responder, limits: .hangBounded, core: core)
        try await server.serving { port in
            let first = try await Self.slowRequest(port: port, entered: entered)
            // Returns after the event core's 10 s wait on the busy loop.
            try await offThePool("refuse") { server.refuseConnections() }
            try await offThePool("accept") { try server.acceptConnections() }
            release.signal()
            _ = try? await first.readUntilClosed()
            // A barrier: the loop has run everything handed to it.
            _ = try await offThePool("loop barrier") { server.settle() }
            let refused = try await RawConnection.connectError(port: port)
            #expect(refused == nil, "acceptConnections() returned: the port accepts again (\(core))")
            guard refused == nil else { return }
            let client = try await RawConnection.connect(port: port)
            try await client.send("GET /quick HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try await client.readResponse()?.status == 200)
        }
    }

    /// A timeout too large for a `Duration` but finite (so not "disabled") is served: both
    /// cores wait at most a day. The event core once turned it into an instant at once, which
    /// trapped on the loop thread and took the whole process down.
    @Test(arguments: HTTPServer.Core.available) func aHugeFiniteIdleTimeoutIsServed(core: HTTPServer.Core) async throws {
        var limits = HTTPServerLimits.hangBounded
        limits.idleTimeout = 1e30
        let server = HTTPServer(responder: Self.echo, limits: limits, core: core)
        try await server.serving { port in
            let client = try await RawConnection.connect(port: port)
            try await client.send("GET /a HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try await client.readResponse()?.status == 200)
        }
    }
}
