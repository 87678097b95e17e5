import Foundation
import FlowCheckTestLanes
import Testing
import FlowCheckFakeServer
import FlowCheckTestSupport

/// Requests the parser refuses still appear in the recording, so transcripts show them.
@Suite(.integration, .timeLimit(.minutes(20)))
struct RecordedRejectionTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var raw: String
        var status: Int
        var method: String
        var target: String
        var header: (name: String, value: String)?
        var rule: FlowCheckRule = .httpMalformedRequestLine
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "garbage", raw: "THIS IS NOT HTTP\r\n\r\n", status: 400, method: "?", target: "?"),
        Case(name: "bad method", raw: "G(T / HTTP/1.1\r\nHost: x\r\n\r\n", status: 400, method: "?", target: "/"),
        Case(name: "unsupported version", raw: "GET /v1/products HTTP/9.9\r\nHost: x\r\n\r\n", status: 505, method: "GET", target: "/v1/products", rule: .httpVersionNotSupported),
        Case(
            name: "gzip coding", raw: "POST /oauth/access_token HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, chunked\r\n\r\n",
            status: 501, method: "POST", target: "/oauth/access_token", header: ("Transfer-Encoding", "gzip, chunked"),
            rule: .httpTransferCodingNotSupported
        ),
        Case(
            name: "malformed chunk", raw: "POST /oauth/access_token HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
            status: 400, method: "POST", target: "/oauth/access_token", header: ("Transfer-Encoding", "chunked"), rule: .httpMalformedChunk
        ),
        Case(
            name: "chunked body too large", raw: "POST /oauth/access_token HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n65\r\n",
            status: 413, method: "POST", target: "/oauth/access_token", header: ("Transfer-Encoding", "chunked"), rule: .httpBodyTooLarge
        ),
        Case(
            name: "body too large", raw: "POST /oauth/access_token HTTP/1.1\r\nHost: x\r\nContent-Length: 999\r\n\r\n",
            status: 413, method: "POST", target: "/oauth/access_token", header: ("Content-Length", "999"), rule: .httpBodyTooLarge
        ),
        Case(
            name: "target too long", raw: "GET /\(String(repeating: "a", count: 600)) HTTP/1.1\r\nHost: x\r\n\r\n", status: 414,
            method: "GET", target: "/" + String(repeating: "a", count: 600), rule: .httpTargetTooLong
        ),
        Case(
            name: "head too large", raw: "GET / HTTP/1.1\r\nHost: x\r\nX-Long: \(String(repeating: "a", count: 600))\r\n\r\n", status: 431,
            method: "GET", target: "/", rule: .httpHeadTooLarge
        ),
    ]

    @Test(arguments: cases)
    func rejectedRequestIsRecordedWithWhatCouldBeRead(_ testCase: Case) async throws {
        let clock = ManualClock()
        let seen = Locked<[Int]>([])
        let moltin = FakeMoltin(fixture: MoltinFixture(clients: [.init(id: "id", secret: "secret")]))
        var limits = HTTPServerLimits.hangBounded
        limits.maxHeaderBytes = 512
        limits.maxBodyBytes = 100
        let world = FakeProviderServer(
            provider: moltin, now: { [clock] in clock.now },
            limits: limits,
            observer: { exchange in seen.withLock { $0.append(exchange.response.status) } }
        )
        try await world.serving {
            let client = try await RawConnection.connect(port: world.port)
            try await client.send(testCase.raw)
            let response = try #require(try await client.readResponse())
            #expect(response.status == testCase.status)

            // Recorded before the response was written, so it is already there.
            let exchange = try #require(world.exchanges.first)
            #expect(world.exchanges.count == 1)
            #expect(exchange.request.method == testCase.method)
            #expect(exchange.request.target == testCase.target)
            #expect(exchange.request.body.isEmpty)
            #expect(exchange.response.status == testCase.status)
            #expect(exchange.response.bodyText == response.bodyText)
            #expect(exchange.fault == nil)
            #expect(exchange.rule == testCase.rule)
            #expect(response.header("FlowCheck-Rule") == testCase.rule.rawValue)
            #expect(exchange.time == clock.now)
            if let header = testCase.header {
                #expect(exchange.request.headers[header.name] == header.value)
            }
            #expect(seen.withLock { $0 } == [testCase.status])
        }
    }

    @Test func headTimeoutIsRecordedAs408() async throws {
        let moltin = FakeMoltin(fixture: MoltinFixture(clients: []))
        let world = FakeProviderServer(provider: moltin, now: { Date(timeIntervalSince1970: 0) }, limits: HTTPServerLimits(readTimeout: 0.2))
        try await world.serving {
            // Sent as the connect completes: sent later by this task, a starved test process
            // could hold it past the server's idle timeout, which closes a silent connection
            // without an answer.
            let client = try await RawConnection.connect(port: world.port, sending: "GET /v1/products HTTP/1.1\r\nHost: x\r\n")
            #expect(try await client.readResponse()?.status == 408)
            let exchange = try #require(world.exchanges.first)
            #expect(exchange.request.method == "GET")
            #expect(exchange.request.path == "/v1/products")
            #expect(exchange.response.status == 408)
            #expect(exchange.rule == .httpTimeout)
        }
    }

    @Test func requestsThatParseAreNotRecordedTwice() async throws {
        let moltin = FakeMoltin(fixture: MoltinFixture(clients: []))
        let world = FakeProviderServer(provider: moltin, now: { Date(timeIntervalSince1970: 0) }, limits: .hangBounded)
        try await world.serving {
            let client = try await RawConnection.connect(port: world.port)
            try await client.send("GET /nope HTTP/1.1\r\nHost: x\r\n\r\ngarbage\r\n\r\n")
            #expect(try await client.readResponse()?.status == 404)
            #expect(try await client.readResponse()?.status == 400)
            #expect(world.exchanges.map(\.response.status) == [404, 400])
            #expect(world.exchanges.map(\.request.method) == ["GET", "?"])
        }
    }
}
