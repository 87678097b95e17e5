import FlowCheckFakeServer
import FlowCheckSpec

extension BraintreeKit: ServeDirectoryProviding {
    public func serveDirectory(for fixture: any ProviderFixture) -> ServeDirectory? {
        guard let fixture = fixture as? BraintreeFixture else { return nil }
        let main = FakeOrigin.main
        return ServeDirectory(
            endpoints: [
                .init("GET", "/", origin: main, "this directory"),
                .init("GET", FakeBraintreeConnect.connectURLPath, origin: main, "the merchant's backend: {\"connectURL\"} to open in a browser"),
                .init("GET", FakeBraintreeConnect.connectPath, origin: main, "Braintree's consent page: client_id, redirect_uri (the backend callback), scope, state"),
                .init("POST", FakeBraintreeConnect.loginPath, origin: main, "the consent form: request_id, email, password, action=login|deny; 302 to the backend callback"),
                .init("GET", FakeBraintreeConnect.callbackPath, origin: main, "the backend's callback: exchanges the code server-side, 302 to the app's return URL"),
                .init("POST", FakeBraintreeConnect.accessTokensPath, origin: main, "what a backend calls: Authorization: Basic base64(client_id \":\" client_secret); code, grant_type=authorization_code"),
            ],
            accounts: [.init(kind: "client", id: fixture.clientID, details: ["returnURL": fixture.returnURL])]
                + fixture.merchants.map { .init(kind: "merchant", id: $0.id, details: ["email": $0.email]) }
        )
    }
}
