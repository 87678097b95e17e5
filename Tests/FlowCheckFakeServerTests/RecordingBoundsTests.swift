import Foundation
import FlowCheckTestLanes
import Testing
import FlowCheckFakeServer

/// A bounded recording keeps the latest exchanges, bodies cut; an unbounded one (a flow's)
/// keeps everything, whole.
@Suite(.fast, .timeLimit(.minutes(20)))
struct RecordingBoundsTests {
    static func moltin(_ recording: RecordingBounds) -> FakeProviderServer {
        let moltin = FakeMoltin(fixture: MoltinFixture(clients: [.init(id: "id", secret: "secret")]))
        return FakeProviderServer(provider: moltin, now: { Date(timeIntervalSince1970: 0) }, recording: recording)
    }

    static func post(_ world: FakeProviderServer, body: Int) -> HTTPResponse {
        var headers = HTTPHeaders()
        headers.set("Content-Type", "application/x-www-form-urlencoded")
        return world.responder.respond(to: HTTPRequest(method: "POST", target: "/oauth/access_token", headers: headers, body: Data(repeating: 0x61, count: body)))
    }

    @Test func keepsTheLastNWithIndexesCountingFromTheFirst() {
        let world = Self.moltin(RecordingBounds(keepLast: 3))
        for number in 0..<10 {
            _ = world.responder.respond(to: HTTPRequest(method: "GET", target: "/n\(number)"))
            #expect(world.exchanges.count == min(number + 1, 3))
        }
        #expect(world.exchanges.map(\.index) == [7, 8, 9])
        #expect(world.exchanges.map(\.request.path) == ["/n7", "/n8", "/n9"])
    }

    @Test func cutsBodiesInTheRecordNotOnTheWire() {
        let world = Self.moltin(RecordingBounds(maxBodyBytes: 16))
        let response = Self.post(world, body: 1_000)
        let exchange = try? #require(world.exchanges.first)
        #expect(exchange?.request.body == Data(repeating: 0x61, count: 16))
        #expect(exchange?.response.body == response.body.prefix(16))
        #expect(response.body.count > 16, "the client got the whole answer")
    }

    @Test func unboundedKeepsEverythingWhole() {
        let world = Self.moltin(.unbounded)
        for _ in 0..<50 { _ = Self.post(world, body: 100_000) }
        #expect(world.exchanges.count == 50)
        #expect(world.exchanges.allSatisfy { $0.request.body.count == 100_000 })
    }
}
