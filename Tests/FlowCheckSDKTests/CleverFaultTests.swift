import Foundation
import FlowCheckTestLanes
import Testing
import FlowCheckFakeServer
import FlowCheckSDK
import FlowCheckTestSupport

/// The fake server's faults against Clever's one request, the code exchange: a typed error, one
/// request, the login over (its state is spent) with the browser dismissed, and the token from an
/// earlier login kept byte for byte.
@Suite("CleverInstantLogin under network faults", .fast, .timeLimit(.minutes(20)))
struct CleverFaultTests {
    @Test("a typed error, one request, the earlier token kept", arguments: NetworkFault.allCases)
    func fault(_ fault: NetworkFault) async throws {
        let world = try CleverWorld(deadline: NetworkFault.timeout, rawAnswers: fault.needsRawAnswer, foreign: fault.isForeign)
        let good = try await world.logIn()
        let before = try #require(try world.store.read(CleverInstantLogin.storeKey))
        let url = try await world.login.startLogin()
        let redirect = try await world.authorize(url)
        let code = try #require(redirect.queryParameter("code"))
        let dismissals = world.browser.dismissCount
        let requestsBefore = NetworkFault.wireCount(world.server, raw: world.raw)
        fault.arm(world.server, raw: world.raw, path: FakeClever.tokenPath)

        let login = world.login
        let error = try await fault.error(clock: world.clock, stalled: world.wiring.stalled) { _ = try await login.handleRedirect(redirect) }

        fault.check(error, secrets: [code, good.accessToken])
        #expect(try world.store.read(CleverInstantLogin.storeKey) == before)
        #expect(try await login.storedToken() == good)
        #expect(NetworkFault.wireCount(world.server, raw: world.raw) == requestsBefore + 1)
        #expect(world.browser.dismissCount == dismissals + 1)

        // The fault cleared, the next login works.
        world.server.clearFaults()
        #expect(try await world.logIn() != good)
    }
}
