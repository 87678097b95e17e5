import Foundation
import FlowCheckTestLanes
import Testing
import FlowCheckFakeServer
import FlowCheckSDK
import FlowCheckTestSupport

/// The fake backend's faults against Braintree's one request, the connect-URL fetch: a typed
/// error, one request (a redirect is not a connect page), nothing opened, no connect in progress,
/// and a working connect once the fault clears. There is no token on the device to keep.
@Suite("BraintreeConnect under network faults", .fast, .timeLimit(.minutes(20)))
struct BraintreeConnectFaultTests {
    @Test("a typed error, one request, nothing opened", arguments: NetworkFault.allCases)
    func fault(_ fault: NetworkFault) async throws {
        let world = try BraintreeWorld(deadline: NetworkFault.timeout, rawAnswers: fault.needsRawAnswer, foreign: fault.isForeign)
        fault.arm(world.server, raw: world.raw, path: FakeBraintreeConnect.connectURLPath)
        let connect = world.connect

        let error = try await fault.error(clock: world.clock, stalled: world.wiring.stalled) { try await connect.connect() }

        fault.check(error, secrets: [BraintreeWorld.clientSecret])
        #expect(NetworkFault.wireCount(world.server, raw: world.raw) == 1)
        #expect(world.browser.openedURLs.isEmpty)
        world.server.clearFaults()
        #expect(await !connect.handleOpenURL(try await world.foreignReturn()), "no connect is in progress")
        #expect(world.events.values.isEmpty)

        try await connect.connect()
        #expect(world.browser.openedURLs.map(\.absoluteString) == [world.servedConnectURLs.last].compactMap { $0 })
    }
}
