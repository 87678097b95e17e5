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
        post(world, Data(repeating: 0x61, count: body))
    }

    static func post(_ world: FakeProviderServer, _ body: Data) -> HTTPResponse {
        var headers = HTTPHeaders()
        headers.set("Content-Type", "application/x-www-form-urlencoded")
        return world.responder.respond(to: HTTPRequest(method: "POST", target: "/oauth/access_token", headers: headers, body: body))
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
        // Words of three letters: the cut at 16 falls between two.
        let response = Self.post(world, Data(String(repeating: "aaa ", count: 250).utf8))
        let exchange = try? #require(world.exchanges.first)
        #expect(exchange?.request.body == Data(String(repeating: "aaa ", count: 4).utf8))
        // The answer is cut too, at or before 16 bytes (where a word of it starts).
        #expect(exchange.map { response.body.starts(with: $0.response.body) && (1...16).contains($0.response.body.count) } == true)
        #expect(response.body.count > 16, "the client got the whole answer")
    }

    /// The record is masked after it is cut, and half a token is no form a redactor knows: a
    /// cut inside a word (a token, a secret, any encoding of them) backs off to its start.
    @Test func aCutNeverLeavesPartOfAWord() {
        let token = "3e1987874179f805e3a5fc0c4c1b24d2a7b9e0c1"
        let head = "grant_type=client_credentials&padding=" + String(repeating: "x", count: 20) + "&state="
        for inside in [1, 8, 30, token.count - 1] {
            let world = Self.moltin(RecordingBounds(maxBodyBytes: head.utf8.count + inside))
            _ = Self.post(world, Data((head + token + "&more=1").utf8))
            let kept = String(decoding: try! #require(world.exchanges.first).request.body, as: UTF8.self)
            #expect(kept == "grant_type=client_credentials&padding=" + String(repeating: "x", count: 20) + "&", "cut \(inside) into the token: \(kept)")
        }
        // A cut right after the word keeps it whole; one word longer than the limit keeps nothing.
        let whole = Self.moltin(RecordingBounds(maxBodyBytes: head.utf8.count + token.count))
        _ = Self.post(whole, Data((head + token + "&more=1").utf8))
        #expect(String(decoding: try! #require(whole.exchanges.first).request.body, as: UTF8.self) == head + token)
        let oneWord = Self.moltin(RecordingBounds(maxBodyBytes: 16))
        _ = Self.post(oneWord, body: 1_000)
        #expect(try! #require(oneWord.exchanges.first).request.body.isEmpty)
    }

    @Test func unboundedKeepsEverythingWhole() {
        let world = Self.moltin(.unbounded)
        for _ in 0..<50 { _ = Self.post(world, body: 100_000) }
        #expect(world.exchanges.count == 50)
        #expect(world.exchanges.allSatisfy { $0.request.body.count == 100_000 })
    }
}
