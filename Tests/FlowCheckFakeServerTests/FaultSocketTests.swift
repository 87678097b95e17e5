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

/// The newer faults as a raw client sees them on the wire, where transport faults really
/// break or hold the connection.
@Suite(.integration, .timeLimit(.minutes(20)))
struct FaultSocketTests {
    let clock = ManualClock()
    let stalls = StallLog()
    let world: FakeProviderServer

    init() {
        let moltin = FakeMoltin(fixture: MoltinFixture(clients: [.init(id: "id", secret: "secret")]))
        world = FakeProviderServer(provider: moltin, now: { [clock] in clock.now }, limits: .hangBounded, stallObserver: { [stalls] in stalls.record($0) })
    }

    private func connect() async throws -> RawConnection {
        try await RawConnection.connect(port: world.port)
    }

    @Test func connectionResetSendsHalfTheAnnouncedBodyThenResets() async throws {
        try await world.serving {
            world.inject(Fault(.connectionReset, path: "/v1/products"))
            let planned = try #require(FaultKind.connectionReset.response(for: HTTPRequest(method: "GET", target: "/v1/products")))
            let client = try await connect()
            try await client.send("GET /v1/products HTTP/1.1\r\nHost: x\r\n\r\n")
            let (bytes, error) = try await client.readUntilClosed()

            let text = String(decoding: bytes, as: UTF8.self)
            let head = try #require(text.range(of: "\r\n\r\n"))
            #expect(text.hasPrefix("HTTP/1.1 200 OK\r\n"))
            #expect(text[..<head.lowerBound].contains("Content-Length: \(planned.body.count)"))
            let body = Array(text.utf8)[text.utf8.distance(from: text.startIndex, to: head.upperBound)...]
            #expect(Array(body) == Array(planned.body.prefix(planned.body.count / 2)))
            #expect(error == ECONNRESET)

            let exchange = try #require(world.exchanges.last)
            #expect(exchange.fault == "connectionReset")
            #expect(exchange.response == planned)
            #expect(exchange.response.jsonBody != nil)
        }
    }

    @Test func stallHoldsSilentlyUntilTheClientClosesWithoutBlockingOthers() async throws {
        try await world.serving {
            world.inject(Fault(.stall, path: "/v1/products", times: 1))
            let stalled = try await connect()
            try await stalled.send("GET /v1/products HTTP/1.1\r\nHost: x\r\n\r\n")
            try await stalls.waitForStall()
            #expect(stalls.paths == ["/v1/products"])
            let recorded = try #require(world.exchanges.last)
            #expect(recorded.fault == "stall")
            #expect(recorded.response.status == 0)
            #expect(recorded.response.body.isEmpty)

            // Another connection is served while the stall holds: no lock or thread is shared.
            let other = try await connect()
            try await other.send("GET /nope HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try await other.readResponse()?.status == 404)
            try await other.send("GET /v1/products HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try await other.readResponse()?.status == 400)

            #expect(!(try await stalled.isReadable(within: .zero)))
            stalled.shutdownWrite()
            let (bytes, error) = try await stalled.readUntilClosed()
            #expect(bytes.isEmpty)
            #expect(error == nil)
            #expect(stalls.paths.count == 1)
            #expect(world.exchanges.map(\.fault) == ["stall", nil, nil])
        }
    }

    @Test func clearingFaultsEndsAStall() async throws {
        try await world.serving {
            world.inject(Fault(.stall))
            let stalled = try await connect()
            try await stalled.send("GET /v1/products HTTP/1.1\r\nHost: x\r\n\r\n")
            try await stalls.waitForStall()
            world.clearFaults()
            let (bytes, error) = try await stalled.readUntilClosed()
            #expect(bytes.isEmpty)
            #expect(error == nil)
            let next = try await connect()
            try await next.send("GET /v1/products HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try await next.readResponse()?.status == 400)
        }
    }

    @Test func stoppingTheServerEndsAStall() async throws {
        try await world.serving {
            world.inject(Fault(.stall))
            let stalled = try await connect()
            try await stalled.send("GET /v1/products HTTP/1.1\r\nHost: x\r\n\r\n")
            try await stalls.waitForStall()
            // stop() joins every connection thread, so returning proves the stall let go.
            await world.stopOffThePool()
            let (bytes, _) = try await stalled.readUntilClosed()
            #expect(bytes.isEmpty)
        }
    }

    @Test func redirectLoopPointsBackAtTheRequestItself() async throws {
        try await world.serving {
            world.inject(Fault(.redirectLoop))
            let client = try await connect()
            for _ in 0..<3 {
                try await client.send("GET /v1/products?page=2 HTTP/1.1\r\nHost: x\r\n\r\n")
                let response = try #require(try await client.readResponse())
                #expect(response.status == 302)
                #expect(response.header("Location") == "/v1/products?page=2")
                #expect(response.header("Content-Length") == "0")
            }
            #expect(world.exchanges.map(\.fault) == ["redirectLoop", "redirectLoop", "redirectLoop"])
        }
    }

    @Test func htmlServerErrorIsA502Page() async throws {
        try await world.serving {
            world.inject(Fault(.htmlServerError, times: 1))
            let client = try await connect()
            try await client.send("GET /v1/products HTTP/1.1\r\nHost: x\r\n\r\n")
            let response = try #require(try await client.readResponse())
            #expect(response.status == 502)
            #expect(response.header("Content-Type") == "text/html")
            #expect(response.bodyText == "<html><body><h1>502 Bad Gateway</h1></body></html>")
        }
    }

    @Test func truncatedJSONIsValidHTTPWithInvalidJSON() async throws {
        try await world.serving {
            world.inject(Fault(.truncatedJSON, times: 1))
            let client = try await connect()
            try await client.send("GET /v1/products HTTP/1.1\r\nHost: x\r\n\r\n")
            let response = try #require(try await client.readResponse())
            #expect(response.status == 200)
            #expect(response.header("Content-Type") == "application/json")
            #expect(response.bodyText == #"{"status":true,"result":[{"id":"prod-1","tit"#)
            #expect(response.header("Content-Length") == String(response.body.count))
            #expect(FakeJSON.parse(response.body) == nil)
            // Framing was right, so the kept-alive connection carries on.
            try await client.send("GET /nope HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try await client.readResponse()?.status == 404)
        }
    }
}
