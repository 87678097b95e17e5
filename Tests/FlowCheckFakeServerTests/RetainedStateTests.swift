import Foundation
import FlowCheckTestLanes
import Testing
@testable import FlowCheckFakeServer
import FlowCheckTestSupport

/// The fakes forget the oldest of what they issued past a table's capacity, so `serve` keeps
/// flat memory for weeks; a forgotten token is refused as a revoked one is.
@Suite(.fast, .timeLimit(.minutes(20)))
struct RetainedStateTests {
    @Test func aTableForgetsItsOldestPastItsCapacity() {
        var table = RetainedTable<Int>(capacity: 3)
        for number in 1...5 { table["k\(number)"] = number }
        #expect(table.count == 3)
        #expect(table["k1"] == nil && table["k2"] == nil)
        #expect(table["k3"] == 3 && table["k5"] == 5)
        // Changing an entry does not make it newer, nor add one.
        table["k3"]? += 10
        table["k9"]? += 10
        #expect(table["k3"] == 13 && table["k9"] == nil && table.count == 3)
        table["k6"] = 6
        #expect(table["k3"] == nil && table["k4"] == 4)
    }

    @Test func forgottenKeysDoNotAccumulate() {
        var table = RetainedTable<Int>(capacity: 100)
        for number in 0..<100_000 { table["k\(number)"] = number }
        #expect(table.count == 100)
        #expect(table.keysHeld <= 2 * 100 + 64 + 1, "the order keeps \(table.keysHeld) keys for 100 entries")
    }

    @Test func removedEntriesLeaveNothingBehind() {
        var table = RetainedTable<Int>(capacity: 4)
        // A login begun and completed, a hundred thousand times: nothing accumulates.
        for number in 0..<100_000 {
            table["r\(number)"] = number
            table["r\(number)"] = nil
        }
        table["live"] = 1
        #expect(table.count == 1 && table["live"] == 1)
        #expect(table.keysHeld < 200)
        for number in 0..<4 { table["n\(number)"] = number }
        #expect(table["live"] == nil, "the oldest live entry goes first")
    }

    @Test func aKeyRemovedAndAddedAgainIsForgottenByItsNewerPlace() {
        var table = RetainedTable<Int>(capacity: 3)
        table["a"] = 1
        table["a"] = nil
        table["b"] = 2
        table["a"] = 3
        table["c"] = 4
        // Full: b, a (again), c. One more forgets b, the oldest, not a by its first place.
        table["d"] = 5
        #expect(table["b"] == nil)
        #expect(table["a"] == 3 && table["c"] == 4 && table["d"] == 5)
    }

    @Test func updateAllChangesEveryRecord() {
        var table = RetainedTable<Bool>(capacity: 8)
        for number in 0..<5 { table["t\(number)"] = false }
        table.updateAll { $0 = true }
        #expect((0..<5).allSatisfy { table["t\($0)"] == true })
        #expect(table.remove("t0") == true && table["t0"] == nil && table.count == 4)
    }

    @Test func theIssuedListKeepsTheLatest() {
        var list = RetainedList(capacity: 10)
        for number in 0..<1_000 { list.append("s\(number)") }
        #expect(list.items.count >= 10 && list.items.count < 20)
        #expect(list.items.last == "s999")
    }

    /// Moltin through its responder: past the table's capacity the first token is refused as a
    /// revoked one (401, `invalid_token`), the latest still works, and memory does not hold them.
    @Test func moltinRefusesAForgottenTokenAsARevokedOne() throws {
        let clock = ManualClock()
        let client = MoltinFixture.Client(id: "c", secret: "s")
        let moltin = FakeMoltin(fixture: MoltinFixture(clients: [client]))
        let world = FakeProviderServer(provider: moltin, now: { [clock] in clock.now })
        func issue() throws -> String {
            var headers = HTTPHeaders([("Host", "127.0.0.1")])
            headers.add("Content-Type", "application/x-www-form-urlencoded")
            let response = world.responder.respond(to: HTTPRequest(method: "POST", target: "/oauth/access_token", headers: headers, body: Data("grant_type=client_credentials&client_id=c&client_secret=s".utf8)))
            return try #require(response.jsonFields()?["access_token"])
        }
        func products(_ token: String) -> Int {
            world.responder.respond(to: HTTPRequest(method: "GET", target: "/v1/products", headers: HTTPHeaders([("Authorization", "Bearer \(token)")]))).status
        }
        let first = try issue()
        #expect(products(first) == 200)
        var last = first
        for _ in 0..<RetainedTable<Never>.defaultCapacity { last = try issue() }
        #expect(products(first) == 401)
        #expect(products(last) == 200)
        #expect(moltin.issuedSecrets.count < 2 * RetainedTable<Never>.defaultCapacity)
        // Forgotten, yet still known for what it is: the redactor masks it by its shape.
        #expect(MintedSecret.isMinted(first))
    }
}
