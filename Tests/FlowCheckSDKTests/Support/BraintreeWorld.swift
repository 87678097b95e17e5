import Foundation
import FlowCheckFakeServer
import FlowCheckSDK
import FlowCheckTestSupport

/// A `BraintreeConnect` against the real `FakeBraintreeConnect` (the merchant's backend and
/// Braintree on one server), with a recording browser and an event recorder; socket-free or over
/// loopback; with `deadline`, through a `DeadlineTransport` on `clock`.
///
/// The merchant's part in the browser (consent page, then the backend's callback, which
/// exchanges the code with the secret out of the device's sight) is played by
/// `FakeBrowserUser`; it returns the app URL the backend redirects to.
///
/// ```swift
/// let world = try BraintreeWorld()
/// try await world.connect.connect()
/// #expect(await world.connect.handleOpenURL(try await world.merchantAuthorizes()))
/// ```
struct BraintreeWorld {
    static let seedReturn = "examplescheme://braintree"
    static let reverseReturn = "com.example.merchantapp:/braintree"
    static let clientID = "client_id$sandbox$abc"
    /// The backend's client secret; it must never appear in anything the device sends or receives.
    static let clientSecret = "client_secret$sandbox$9f2c41d7"
    static let merchantID = "MERCH-BT-1"
    static let merchant = (email: "owner@merchant.example", password: "pw-owner-1")

    let mode: FakeTransportMode
    let clock: ManualClock
    let braintree: FakeBraintreeConnect
    let server: FakeProviderServer
    let wiring: WorldWiring
    let watch: ExchangeWatch
    let browser = RecordingUserAgent()
    let events = EventRecorder<BraintreeConnectEvent>()
    let connect: BraintreeConnect

    /// - Parameters:
    ///   - returnURL: The app's return URL, for the fake's backend and the SDK alike.
    ///   - endpointPath: The path the SDK fetches the connect URL from.
    init(
        mode: FakeTransportMode = .socketFree,
        returnURL: String = BraintreeWorld.seedReturn,
        endpointPath: String = FakeBraintreeConnect.connectURLPath,
        deadline: TimeInterval? = nil,
        rawAnswers: Bool = false,
        foreign: Bool = false
    ) throws {
        let clock = ManualClock()
        let watch = ExchangeWatch()
        let stalled = Gate("stall began")
        let braintree = FakeBraintreeConnect(fixture: BraintreeFixture(
            clientID: Self.clientID, clientSecret: Self.clientSecret,
            merchants: [.init(id: Self.merchantID, email: Self.merchant.email, password: Self.merchant.password)],
            returnURL: returnURL
        ))
        let server = FakeProviderServer(
            provider: braintree, now: { clock.now }, observer: { watch.observe($0) }, stallObserver: { _ in stalled.open() })
        let wiring = try WorldWiring.connect(
            server, mode: mode, rawAnswers: rawAnswers, stalled: stalled, clock: clock, deadline: deadline, foreign: foreign)
        self.mode = mode
        self.clock = clock
        self.braintree = braintree
        self.server = server
        self.wiring = wiring
        self.watch = watch
        let events = self.events
        connect = BraintreeConnect(
            configuration: try BraintreeConnectConfiguration(
                connectURLEndpoint: wiring.connection.baseURL.appendingPathComponent(String(endpointPath.dropFirst())),
                returnURL: returnURL),
            transport: wiring.transport,
            userAgent: browser,
            notify: events.callback
        )
    }

    var baseURL: URL { wiring.connection.baseURL }

    /// The transport tap: what the SDK itself sent.
    var tap: TransportTap { wiring.tap }

    /// The raw-answer slot; only in a world made with `rawAnswers: true`.
    var raw: RawAnswers? { wiring.raw }

    /// The merchant approves on the connect page the browser last opened; returns the app URL
    /// the backend sends the merchant back to (`RETURN/connected?merchant_id=M`).
    func merchantAuthorizes() async throws -> URL {
        try await merchant(on: try opened(), .logIn(email: Self.merchant.email, password: Self.merchant.password))
    }

    /// The merchant declines on the connect page the browser last opened (`RETURN/failed?error=access_denied`).
    func merchantDeclines() async throws -> URL {
        try await merchant(on: try opened(), .deny)
    }

    /// A return URL as perfect as can be, from a connect this SDK did not start: the backend's
    /// connect URL fetched on the side, approved by the merchant.
    func foreignReturn() async throws -> URL {
        let transport = wiring.connection.transport
        let answer = try await transport.send(TransportRequest(
            url: baseURL.appendingPathComponent(String(FakeBraintreeConnect.connectURLPath.dropFirst())), headers: [("Accept", "application/json")]))
        guard let object = try JSONSerialization.jsonObject(with: answer.body) as? [String: Any],
              let text = object["connectURL"] as? String, let url = URL(string: text)
        else { throw FakeBrowserUser.Stopped(status: answer.status, description: "no connect URL") }
        return try await merchant(on: url, .logIn(email: Self.merchant.email, password: Self.merchant.password))
    }

    private func opened() throws -> URL {
        guard let url = browser.openedURLs.last else {
            throw FakeBrowserUser.Stopped(status: 0, description: "the SDK opened no connect page")
        }
        return url
    }

    private func merchant(on url: URL, _ choice: FakeBrowserUser.Choice) async throws -> URL {
        try await FakeBrowserUser(transport: wiring.connection.transport).complete(url, choice)
    }

    var exchanges: [RecordedExchange] { server.exchanges }

    /// The connect URLs the backend handed out, in order.
    var servedConnectURLs: [String] {
        exchanges.compactMap { exchange in
            guard exchange.request.path == FakeBraintreeConnect.connectURLPath, exchange.response.status == 200 else { return nil }
            return exchange.response.jsonFields()?["connectURL"]
        }
    }
}
