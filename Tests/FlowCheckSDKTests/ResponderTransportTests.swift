import Foundation
import FlowCheckTestLanes
import Testing
import FlowCheckFakeServer
import FlowCheckSDK
import FlowCheckTestSupport

/// The socket-free transport and the connection helper from FlowCheckTestSupport: what the SDK
/// sees through them is what it would see over loopback.
@Suite("ResponderTransport and FakeConnection", .integration, .timeLimit(.minutes(20)))
struct ResponderTransportTests {
    static let url = URL(string: "http://localhost:8080/v1/products?page=2&q=a%20b")!

    @Test("the request arrives as on the wire: origin-form target, Host first, headers in order, body")
    func wireRequest() async throws {
        let seen = LockedRequests()
        let transport = ResponderTransport(responder: ClosureResponder { request in
            seen.append(request)
            return HTTPResponse(status: 201, headers: [("Set-Cookie", "a=1"), ("set-cookie", "b=2"), ("X-One", "1")], body: Data("ok".utf8))
        })
        let response = try await transport.send(TransportRequest(
            method: "POST", url: Self.url, headers: [("Content-Type", "text/plain"), ("Accept", "*/*")], body: Data("hi".utf8)))
        let request = try #require(seen.all.first)
        #expect(request.method == "POST")
        #expect(request.target == "/v1/products?page=2&q=a%20b")
        #expect(request.headers.pairs.map(\.name) == ["Host", "Content-Type", "Accept"])
        #expect(request.headers["Host"] == "localhost:8080")
        #expect(request.body == Data("hi".utf8))
        #expect(response.status == 201)
        #expect(response.header("set-cookie") == "a=1, b=2")
        #expect(response.header("x-one") == "1")
        #expect(response.body == Data("ok".utf8))
    }

    @Test("unreachable, reset and a cancelled task are what URLSessionTransport reports")
    func transportFaults() async throws {
        let clock = ManualClock()
        let moltin = FakeMoltin(fixture: MoltinWorld.fixture)
        let server = FakeProviderServer(provider: moltin, now: { clock.now })
        let transport = ResponderTransport(server: server)
        let request = TransportRequest(url: URL(string: "http://localhost/v1/products")!)

        server.inject(Fault(kind: .unreachable))
        let refused = await #expect(throws: OAuthError.self) { try await transport.send(request) }
        #expect(refused == OAuthError(code: .transport, message: "could not connect to the server (URLError -1004)"))
        #expect(server.exchanges.isEmpty, "nothing reached the fake")
        server.clearFaults()

        server.inject(Fault(kind: .connectionReset, times: 1))
        let reset = await #expect(throws: OAuthError.self) { try await transport.send(request) }
        #expect(reset == OAuthError(code: .transport, message: "the network connection was lost (URLError -1005)"))
        #expect(server.exchanges.count == 1)

        #expect(try await transport.send(request).status == 400, "the fault is spent: the fake answers")

        let cancelled = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await transport.send(request)
        }
        await #expect(throws: CancellationError.self) {
            try await boundedValue(of: cancelled, waitingFor: "a send from an already cancelled task")
        }
        #expect(server.exchanges.count == 2)
    }

    @Test("a stall waits for cancellation, or ends at its real-time bound as a timeout")
    func stall() async throws {
        let clock = ManualClock()
        let server = FakeProviderServer(provider: FakeMoltin(fixture: MoltinWorld.fixture), now: { clock.now })
        let stalled = Gate("stall began")
        let transport = ResponderTransport(server: server, stallLimit: .milliseconds(50), onStall: { _ in stalled.open() })
        let request = TransportRequest(url: URL(string: "http://localhost/v1/products")!)

        server.inject(Fault(kind: .stall))
        let timedOut = await #expect(throws: OAuthError.self) { try await transport.send(request) }
        #expect(timedOut == OAuthError(code: .transport, message: "the request timed out (URLError -1001)"))

        // A stall limit past the wait's own bound: only the cancel can end this one in time.
        let patient = ResponderTransport(server: server, stallLimit: HangBound.standard * 2, onStall: { _ in stalled.open() })
        let task = Task { try await patient.send(request) }
        try await stalled.wait()
        task.cancel()
        await #expect(throws: CancellationError.self) {
            try await boundedValue(of: task, waitingFor: "the stalled send after its cancel")
        }
    }

    @Test("a raw responder is served the same way in both modes", arguments: FakeTransportMode.allCases)
    func serving(_ mode: FakeTransportMode) async throws {
        let connection = try FakeConnection.serving(ClosureResponder { request in
            .text(200, request.path)
        }, mode: mode)
        defer { connection.close() }
        let response = try await connection.transport.send(TransportRequest(url: connection.baseURL.appendingPathComponent("raw")))
        #expect(response.status == 200)
        #expect(String(decoding: response.body, as: UTF8.self) == "/raw")
        #expect(connection.baseURL.host == (mode == .loopback ? "127.0.0.1" : "localhost"))
    }

    @Test("the browser user stops with the page's words when there is no way back to the app")
    func browserUserStops() async throws {
        let connection = try FakeConnection.serving(ClosureResponder { _ in .text(400, "<p>Unknown client_id</p>", contentType: "text/html") }, mode: .socketFree)
        let user = FakeBrowserUser(transport: connection.transport)
        let stopped = await #expect(throws: FakeBrowserUser.Stopped.self) {
            try await user.complete(connection.baseURL.appendingPathComponent("oauth/authorize"), .deny)
        }
        #expect(stopped?.status == 400)
        #expect(stopped?.description.contains("Unknown client_id") == true)
    }
}

/// Requests seen by a responder, from any thread.
private final class LockedRequests: @unchecked Sendable {
    private let lock = NSLock()
    private var requests: [HTTPRequest] = []

    func append(_ request: HTTPRequest) {
        lock.lock()
        requests.append(request)
        lock.unlock()
    }

    var all: [HTTPRequest] {
        lock.lock()
        defer { lock.unlock() }
        return requests
    }
}
