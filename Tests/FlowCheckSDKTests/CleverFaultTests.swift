import Foundation
import Testing
import FlowCheckSDK
import FlowCheckTestSupport

/// The fake server's faults against Clever's one request, the code exchange: a typed error, one
/// request, the login over (its state is spent) with the browser dismissed, and the token from an
/// earlier login kept byte for byte.
@Suite("CleverInstantLogin under network faults", .timeLimit(.minutes(5)))
struct CleverFaultTests {
    static let tokenBody = #"{"access_token":"cle-at-99","token_type":"bearer"}"#

    @Test("a typed error, one request, the earlier token kept", arguments: NetworkFault.allCases)
    func fault(_ fault: NetworkFault) async throws {
        let fixture = try CleverFixture(deadline: NetworkFault.timeout)
        let good = try await fixture.logIn()
        let before = try #require(try fixture.store.read(CleverInstantLogin.storeKey))
        let url = try await fixture.login.startLogin()
        let redirect = try fixture.server.authorize(url)
        let code = try #require(redirect.queryParameters.first { $0.0 == "code" }?.1)
        let dismissals = fixture.browser.dismissCount
        let requestsBefore = fixture.server.requests.count
        fixture.server.intercept { request in try await fault.respond(to: request, success: Self.tokenBody) }

        let login = fixture.login
        let error = try await fault.error(clock: fixture.clock) { _ = try await login.handleRedirect(redirect) }

        fault.check(error, secrets: [code, good.accessToken])
        #expect(try fixture.store.read(CleverInstantLogin.storeKey) == before)
        #expect(try await login.storedToken() == good)
        #expect(fixture.server.requests.count == requestsBefore + 1)
        #expect(fixture.browser.dismissCount == dismissals + 1)

        // The fault cleared, the next login works.
        fixture.server.intercept(nil)
        #expect(try await fixture.logIn() != good)
    }
}
