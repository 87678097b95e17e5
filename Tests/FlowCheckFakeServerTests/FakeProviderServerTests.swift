import Foundation
import FlowCheckTestLanes
import Testing
import FlowCheckFakeServer
import FlowCheckTestSupport

/// Recording and fault injection around a provider, through the socket-free responder.
@Suite(.integration, .timeLimit(.minutes(20)))
struct FakeProviderServerTests {
    let clock = ManualClock()
    let world: FakeProviderServer

    init() {
        let moltin = FakeMoltin(fixture: MoltinFixture(clients: [.init(id: "id", secret: "secret")]))
        world = FakeProviderServer(provider: moltin, now: { [clock] in clock.now }, limits: .hangBounded)
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

    /// A reshape changes whatever answers (the provider, or a fault injected after it), never
    /// stands in a fault's way, counts down with `times`, and goes with `clearFaults`.
    @Test func aReshapeChangesTheAnswerAndLeavesFaultsInForce() throws {
        world.inject(Fault(.unknownMembers, path: "/v1/products", times: 2))
        world.inject(Fault(.tokenNotValid, path: "/v1/products", times: 1))
        let faulted = get("/v1/products")
        #expect(faulted.status == 401)
        #expect(faulted.headers["WWW-Authenticate"] != nil)
        #expect(faulted.bodyText == #"{"error":"Access token is not valid","flowcheck_unknown":"ignored","flowcheck_unknown_object":{"nested":[1,true,null]},"status":false}"#)
        let own = get("/v1/products")
        #expect(own.status == 400)
        #expect(own.bodyText.contains(#""flowcheck_unknown":"ignored""#))
        #expect(!get("/v1/products").bodyText.contains("flowcheck_unknown"), "spent after 2")
        world.inject(Fault(.errorsMember, path: "/v1/products"))
        world.inject(Fault(.withoutChallenge, path: "/v1/products"))
        world.inject(Fault(.tokenNotValid, path: "/v1/products"))
        let renamed = get("/v1/products")
        #expect(renamed.bodyText == #"{"errors":"Access token is not valid","status":false}"#)
        #expect(renamed.headers["WWW-Authenticate"] == nil)
        world.clearFaults()
        #expect(get("/v1/products").bodyText.contains(#""error":"#))
        // The recording keeps the fault that answered; a reshape is not one.
        #expect(world.exchanges.map(\.fault) == ["tokenNotValid", nil, nil, "tokenNotValid", nil])
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

    // `hold` has no canned answer: the provider answers (socket-free, at once). Reshapes have
    // none either (the next test).
    @Test(arguments: FaultKind.allCases.filter { $0 != .unreachable && $0 != .hold && !$0.isReshape })
    func faultsWithoutLimitLastUntilCleared(kind: FaultKind) throws {
        world.inject(Fault(kind))
        for path in ["/v1/products", "/oauth/access_token", "/anything"] {
            let expected = try #require(kind.response(for: HTTPRequest(method: "GET", target: path)))
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

    @Test func newCannedFaultResponses() throws {
        let request = HTTPRequest(method: "GET", target: "/v1/products?page=2")
        let html = try #require(FaultKind.htmlServerError.response(for: request))
        #expect(html.status == 502)
        #expect(html.headers["Content-Type"] == "text/html")
        #expect(html.bodyText == "<html><body><h1>502 Bad Gateway</h1></body></html>")
        let truncated = try #require(FaultKind.truncatedJSON.response(for: request))
        #expect(truncated.status == 200)
        #expect(truncated.headers["Content-Type"] == "application/json")
        #expect(truncated.bodyText == #"{"status":true,"result":[{"id":"prod-1","tit"#)
        #expect(truncated.jsonBody == nil)
        let redirect = try #require(FaultKind.redirectLoop.response(for: request))
        #expect(redirect.status == 302)
        #expect(redirect.headers["Location"] == "/v1/products?page=2")
        #expect(FaultKind.redirectLoop.response?.headers["Location"] == "/")
        let reset = try #require(FaultKind.connectionReset.response(for: request))
        #expect(reset.status == 200)
        #expect(reset.headers["Content-Type"] == "application/json")
        #expect(reset.jsonBody != nil)
        #expect((1_800...2_600).contains(reset.body.count))
        let stall = try #require(FaultKind.stall.response(for: request))
        #expect(stall.status == 0)
        #expect(stall.body.isEmpty)
    }

    /// The three answers that let a spec tell "the server ended the session" (invalid_grant)
    /// from "slow down" (429) and "down" (503), both of which carry Retry-After.
    @Test func refusedBusyAndDownAnswers() throws {
        let request = HTTPRequest(method: "POST", target: "/oauth/v2/refresh")
        let limited = try #require(FaultKind.rateLimited.response(for: request))
        #expect(limited.status == 429)
        #expect(limited.headers["Retry-After"] == "30")
        #expect(limited.jsonFields()?["error"] == "rate_limited")
        let refused = try #require(FaultKind.invalidGrant.response(for: request))
        #expect(refused.status == 400)
        #expect(refused.headers["Retry-After"] == nil)
        #expect(refused.jsonFields()?["error"] == "invalid_grant")
        let down = try #require(FaultKind.serviceUnavailable.response(for: request))
        #expect(down.status == 503)
        #expect(down.headers["Retry-After"] == "120")
        #expect(down.jsonFields()?["error"] == "temporarily_unavailable")
    }

    /// Without sockets there is nothing to reset or hold: the caller gets the planned
    /// response, it is recorded the same way, and no stall begins.
    @Test func transportFaultsThroughTheResponderGiveThePlannedResponse() throws {
        let stalls = StallLog()
        let moltin = FakeMoltin(fixture: MoltinFixture(clients: []))
        let world = FakeProviderServer(provider: moltin, now: { [clock] in clock.now }, stallObserver: { [stalls] in stalls.record($0) })
        world.inject(Fault(.connectionReset, times: 1))
        world.inject(Fault(.stall, times: 1))
        let reset = world.responder.respond(to: HTTPRequest(method: "GET", target: "/v1/products"))
        #expect(reset == FaultKind.connectionReset.response)
        let stalled = world.responder.respond(to: HTTPRequest(method: "GET", target: "/v1/products"))
        #expect(stalled.status == 0)
        #expect(world.responder.respond(to: HTTPRequest(method: "GET", target: "/nope")).status == 404)
        #expect(world.exchanges.map(\.fault) == ["connectionReset", "stall", nil])
        #expect(world.exchanges.map(\.response.status) == [200, 0, 404])
        #expect(stalls.paths.isEmpty)
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

    @Test func unreachableRefusesConnectionsUntilCleared() async throws {
        try await world.serving {
            let port = world.port
            #expect(world.baseURL.absoluteString == "http://127.0.0.1:\(port)")
            // On a listening server, refusing waits for the accept thread: off the pool.
            try await offThePool("FakeProviderServer.inject(.unreachable)") { [world] in
                world.inject(Fault(kind: .unreachable, path: "/ignored", times: 1))
            }
            #expect(world.isUnreachable)
            #expect(world.activeFaults.isEmpty)
            #expect(try await RawConnection.connectError(port: port) == ECONNREFUSED)
            #expect(try await RawConnection.connectError(port: port) == ECONNREFUSED)
            world.clearFaults()
            #expect(!world.isUnreachable)
            #expect(world.listenerError == nil)
            let client = try await RawConnection.connect(port: port)
            try await client.send("GET /v1/products HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try await client.readResponse()?.status == 400)
            #expect(world.exchanges.count == 1)
        }
    }

    @Test func unreachableInjectedBeforeStartTakesEffectOnStart() async throws {
        world.inject(Fault(.unreachable))
        try await world.serving {
            #expect(world.port > 0)
            let whileUnreachable = try await RawConnection.connectError(port: world.port)
            #expect(whileUnreachable == ECONNREFUSED)
            world.clearFaults()
            let afterClearing = try await RawConnection.connectError(port: world.port)
            #expect(afterClearing == nil)
        }
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
