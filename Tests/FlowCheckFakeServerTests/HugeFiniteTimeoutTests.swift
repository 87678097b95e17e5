import Foundation
import FlowCheckTestLanes
import Testing
@testable import FlowCheckFakeServer
import FlowCheckTestSupport

/// A timeout too large for a `Duration` (but finite, so not "disabled") is clamped by the
/// threaded core (poll waits at most a day). The event core turns it into an Instant at once
/// (EventConnection.begin, `.now + .seconds(idleTimeout)`), which traps on the loop thread and
/// takes the whole process down. Kept apart: on the event core it crashes the test process.
@Suite(.integration, .timeLimit(.minutes(20)))
struct HugeFiniteTimeoutTests {
    @Test(arguments: HTTPServer.Core.available) func aHugeFiniteIdleTimeoutIsServed(core: HTTPServer.Core) async throws {
        var limits = HTTPServerLimits.hangBounded
        limits.idleTimeout = 1e30
        let server = HTTPServer(responder: EventCoreReviewTests.echo, limits: limits, core: core)
        try await server.serving { port in
            let client = try await RawConnection.connect(port: port)
            try await client.send("GET /a HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try await client.readResponse()?.status == 200)
        }
    }
}
