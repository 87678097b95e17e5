import FlowCheckFakeServer
import FlowCheckSpec

extension CleverKit: ServeDirectoryProviding {
    public func serveDirectory(for fixture: any ProviderFixture) -> ServeDirectory? {
        guard let fixture = fixture as? CleverFixture else { return nil }
        let main = FakeOrigin.main
        return ServeDirectory(
            endpoints: [
                .init("GET", "/", origin: main, "this directory"),
                .init("GET", FakeClever.authorizePath, origin: main, "login page: response_type=code, client_id, redirect_uri (the client's registered one), state"),
                .init("POST", FakeClever.loginPath, origin: main, "the login form: request_id, email, password, action=login|deny; 302 to redirect_uri with code and state"),
                .init("POST", FakeClever.tokenPath, origin: main, "Authorization: Basic base64(client_id \":\"); code, grant_type=authorization_code, redirect_uri as a form or JSON"),
            ],
            accounts: fixture.clients.map { .init(kind: "client", id: $0.id, details: ["redirectURL": $0.redirectURL]) }
                + fixture.users.map { .init(kind: "user", id: $0.email) }
        )
    }
}
