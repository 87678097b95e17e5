import FlowCheckFakeServer
import FlowCheckSpec

extension MoltinKit: ServeDirectoryProviding {
    public func serveDirectory(for fixture: any ProviderFixture) -> ServeDirectory? {
        guard let fixture = fixture as? MoltinFixture else { return nil }
        let main = FakeOrigin.main
        return ServeDirectory(
            endpoints: [
                .init("GET", "/", origin: main, "this directory"),
                .init("POST", FakeMoltin.tokenPath, origin: main, "token endpoint, form-encoded: grant_type=client_credentials (client_id, client_secret) or refresh_token (refresh_token: a token issued before, used once)"),
                .init("GET", FakeMoltin.productsPath, origin: main, "the catalogue; Authorization: Bearer <access_token>, 401 once expired"),
            ],
            accounts: fixture.clients.map { .init(kind: "client", id: $0.id, details: ["lifetimeSeconds": String(Int(fixture.tokenLifetime))]) }
        )
    }
}
