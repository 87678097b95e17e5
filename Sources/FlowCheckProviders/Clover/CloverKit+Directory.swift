import FlowCheckFakeServer
import FlowCheckSpec

extension CloverKit: ServeDirectoryProviding {
    public func serveDirectory(for fixture: any ProviderFixture) -> ServeDirectory? {
        guard let fixture = fixture as? CloverFixture else { return nil }
        let api = FakeClover.apiOrigin, web = FakeClover.webOrigin
        return ServeDirectory(
            endpoints: [
                .init("GET", "/", origin: api, "this directory"),
                .init("GET", FakeClover.authorizePath, origin: web, "login page: client_id, redirect_uri (under the app's site URL), response_type=code, code_challenge (S256), code_challenge_method=S256, state"),
                .init("POST", FakeClover.loginPath, origin: web, "the login form: request_id, email, password, action=login|deny; 302 to redirect_uri with merchant_id, client_id, code, state"),
                .init("POST", FakeClover.tokenPath, origin: api, "JSON {client_id, code, code_verifier} for tokens"),
                .init("POST", FakeClover.refreshPath, origin: api, "JSON {client_id, refresh_token}: rotates the refresh token"),
                .init("GET", FakeClover.merchantsPrefix + "{mId}", origin: api, "the merchant; Authorization: Bearer <access_token>"),
            ],
            accounts: fixture.apps.map { .init(kind: "app", id: $0.id, details: ["siteURL": $0.siteURL]) }
                + fixture.merchants.map { .init(kind: "merchant", id: $0.id, details: ["name": $0.name, "installedApps": $0.installedApps.joined(separator: ",")]) }
                + fixture.employees.map { .init(kind: "employee", id: $0.email, details: ["merchant": $0.merchantID]) }
        )
    }
}
