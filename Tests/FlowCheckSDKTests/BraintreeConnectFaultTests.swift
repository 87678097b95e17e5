import Foundation
import Testing
import FlowCheckSDK
import FlowCheckTestSupport

/// The fake backend's faults against Braintree's one request, the connect-URL fetch: a typed
/// error, one request (a redirect is not a connect page), nothing opened, no connect in progress,
/// and a working connect once the fault clears. There is no token on the device to keep.
@Suite("BraintreeConnect under network faults", .timeLimit(.minutes(5)))
struct BraintreeConnectFaultTests {
    static let connectBody = #"{"connectURL":"\#(StubBraintreeBackend.connectURL)"}"#

    @Test("a typed error, one request, nothing opened", arguments: NetworkFault.allCases)
    func fault(_ fault: NetworkFault) async throws {
        let clock = ManualClock()
        let backend = StubBraintreeBackend()
        let browser = RecordingUserAgent()
        let events = EventRecorder<BraintreeConnectEvent>()
        let returnURL = "examplescheme://braintree"
        let connect = BraintreeConnect(
            configuration: try BraintreeConnectConfiguration(connectURLEndpoint: StubBraintreeBackend.endpoint, returnURL: returnURL),
            transport: DeadlineTransport(base: backend, clock: clock, timeout: NetworkFault.timeout),
            userAgent: browser,
            notify: events.callback
        )
        backend.intercept { request in try await fault.respond(to: request, success: Self.connectBody) }

        let error = try await fault.error(clock: clock) { try await connect.connect() }

        fault.check(error, secrets: [StubBraintreeBackend.clientSecret])
        #expect(backend.requests.count == 1)
        #expect(browser.openedURLs.isEmpty)
        #expect(await !connect.handleOpenURL(backend.merchantAuthorizes(returnURL: returnURL)), "no connect is in progress")
        #expect(events.values.isEmpty)

        backend.intercept(nil)
        try await connect.connect()
        #expect(browser.openedURLs.map(\.absoluteString) == [StubBraintreeBackend.connectURL])
    }
}
