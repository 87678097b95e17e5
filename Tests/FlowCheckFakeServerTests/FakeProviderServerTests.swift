import Foundation
import Testing
import FlowCheckFakeServer

/// Recording and fault injection around a provider, through the socket-free responder.
struct FakeProviderServerTests {
    let clock = TestClock()
    let world: FakeProviderServer

    init() {
        let moltin = FakeMoltin(fixture: MoltinFixture(clients: [.init(id: "id", secret: "secret")]))
        world = FakeProviderServer(provider: moltin, now: { [clock] in clock.now })
    }

    private func get(_ path: String) -> HTTPResponse {
        world.responder.respond(to: HTTPRequest(method: "GET", target: path))
    }

    @Test func recordsEveryExchangeInOrderWithVirtualTime() {
        let start = clock.now
        _ = get("/v1/products")
        clock.advance(by: 5)
        _ = get("/nope")
        let exchanges = world.exchanges
        #expect(exchanges.map(\.index) == [0, 1])
        #expect(exchanges.map(\.request.path) == ["/v1/products", "/nope"])
        #expect(exchanges.map(\.response.status) == [400, 404])
        #expect(exchanges.map(\.time) == [start, start + 5])
        #expect(exchanges.allSatisfy { $0.fault == nil })
    }

    @Test func faultWithTimesAndPathDecrementsThenDisappears() {
        world.inject(Fault(kind: .serverError, path: "/v1/products", times: 2))
        #expect(get("/nope").status == 404)
        let first = get("/v1/products")
        #expect(first.status == 500)
        #expect(first.bodyText == #"{"error":"Internal Server Error","status":false}"#)
        #expect(world.activeFaults == [Fault(kind: .serverError, path: "/v1/products", times: 1)])
        #expect(get("/v1/products").status == 500)
        #expect(world.activeFaults.isEmpty)
        #expect(get("/v1/products").status == 400)
        #expect(world.exchanges.map(\.fault) == [nil, "serverError", "serverError", nil])
    }

    @Test(arguments: FaultKind.allCases.filter { $0 != .unreachable })
    func faultsWithoutLimitLastUntilCleared(kind: FaultKind) throws {
        world.inject(Fault(kind))
        let expected = try #require(kind.response)
        for path in ["/v1/products", "/oauth/access_token", "/anything"] {
            #expect(get(path) == expected)
        }
        world.clearFaults()
        #expect(get("/anything").status == 404)
        #expect(world.exchanges.map(\.fault) == [kind.rawValue, kind.rawValue, kind.rawValue, nil])
    }

    @Test func cannedFaultResponses() {
        #expect(FaultKind.nonJSONBody.response?.status == 200)
        #expect(FaultKind.nonJSONBody.response?.headers["Content-Type"] == "text/html")
        #expect(FaultKind.nonJSONBody.response?.bodyText == "<html><body>Service Unavailable</body></html>")
        #expect(FaultKind.tokenNotValid.response?.status == 401)
        #expect(FaultKind.tokenNotValid.response?.bodyText == #"{"error":"Access token is not valid","status":false}"#)
        #expect(FaultKind.unreachable.response == nil)
    }

    @Test func earliestMatchingFaultWinsAndZeroTimesNeverFires() {
        world.inject(Fault(kind: .tokenNotValid, times: 0))
        world.inject(Fault(kind: .nonJSONBody, path: "/a", times: 1))
        world.inject(Fault(kind: .serverError, times: 1))
        #expect(get("/b").status == 500)
        #expect(get("/a").headers["Content-Type"] == "text/html")
        #expect(get("/a").status == 404)
    }

    @Test func faultedRequestsNeverReachTheProvider() {
        world.inject(Fault(kind: .serverError, path: "/oauth/access_token", times: 1))
        let body = Data(FormBody.encode([("grant_type", "client_credentials"), ("client_id", "id"), ("client_secret", "secret")]).utf8)
        let response = world.responder.respond(to: HTTPRequest(method: "POST", target: "/oauth/access_token", body: body))
        #expect(response.status == 500)
        #expect(world.issuedSecrets.isEmpty)
    }

    @Test func unreachableRefusesConnectionsUntilCleared() throws {
        try world.start()
        defer { world.stop() }
        let port = world.port
        #expect(world.baseURL.absoluteString == "http://127.0.0.1:\(port)")
        world.inject(Fault(kind: .unreachable, path: "/ignored", times: 1))
        #expect(world.isUnreachable)
        #expect(world.activeFaults.isEmpty)
        #expect(RawClient.connectError(port: port) == ECONNREFUSED)
        #expect(RawClient.connectError(port: port) == ECONNREFUSED)
        world.clearFaults()
        #expect(!world.isUnreachable)
        #expect(world.listenerError == nil)
        let client = try RawClient(port: port)
        client.send("GET /v1/products HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(client.readResponse()?.status == 400)
        #expect(world.exchanges.count == 1)
    }

    @Test func unreachableInjectedBeforeStartTakesEffectOnStart() throws {
        world.inject(Fault(.unreachable))
        try world.start()
        defer { world.stop() }
        #expect(world.port > 0)
        #expect(RawClient.connectError(port: world.port) == ECONNREFUSED)
        world.clearFaults()
        #expect(RawClient.connectError(port: world.port) == nil)
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
