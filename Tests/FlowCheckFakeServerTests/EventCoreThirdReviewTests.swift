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

/// Third review of the event core (d5553b2). The threaded core is the reference.
@Suite(.integration, .timeLimit(.minutes(20)))
struct EventCoreThirdReviewTests {
    static let echo = ClosureResponder { request in .text(200, "\(request.method) \(request.path)") }

    /// `refuseConnections()` while a responder holds the server's loop: it shuts the listener
    /// down, gives up after its 10 s wait and leaves `closeEverything` queued. The
    /// `acceptConnections()` that follows (FakeProviderServer.clearFaults) opens a new listener
    /// and queues its `listen(on:)`. The loop then runs the stale `closeEverything`, which
    /// closes `shared.listener`, now the *new* listener (the old one is deregistered but never
    /// closed: leaked), and then `listen(on:)` finds `shared.listener != fd` and closes the new
    /// descriptor a second time (whatever the number names by then). The server says it is
    /// listening but refuses every connect. The threaded core listens again.
    @Test(arguments: HTTPServer.Core.available.filter { $0 != .sharedEvents }) func acceptAfterARefuseThatWaitedOnABusyLoopListensAgain(core: HTTPServer.Core) async throws {
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let responder = ClosureResponder { request in
            if request.path == "/slow" {
                entered.signal()
                _ = release.wait(timeout: .now() + .seconds(Int(HangBound.seconds)))
            }
            return .text(200, request.path)
        }
        let server = HTTPServer(responder: responder, limits: .hangBounded, core: core)
        try await server.serving { port in
            let first = try await RawConnection.connect(port: port)
            try await first.send("GET /slow HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try await offThePool("slow responder entered") { entered.wait(timeout: .now() + .seconds(Int(HangBound.seconds))) == .success })
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
}
