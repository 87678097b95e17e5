import Foundation
import FlowCheckSDK
import FlowCheckTestSupport

/// A client wired to a `StubMoltin`, an in-memory store and a manual clock; with `deadline`, through
/// a `DeadlineTransport` on that clock, as the harness wires it.
struct MoltinFixture {
    let clock: ManualClock
    let server: StubMoltin
    let store: InMemoryTokenStore
    let client: MoltinClient

    init(
        store: InMemoryTokenStore = InMemoryTokenStore(),
        clock: ManualClock = ManualClock(),
        server: StubMoltin? = nil,
        deadline: TimeInterval? = nil
    ) throws {
        self.clock = clock
        self.server = server ?? StubMoltin(clock: clock)
        self.store = store
        let server = self.server
        let transport: any HTTPTransport = deadline.map { DeadlineTransport(base: server, clock: clock, timeout: $0) } ?? server
        client = MoltinClient(
            configuration: try MoltinConfiguration(baseURL: URL(string: "http://127.0.0.1:8080")!),
            transport: transport,
            store: store,
            clock: clock
        )
    }

    /// A second client on the same store, server and clock, as after an app restart: the token
    /// survives, the in-memory credentials do not.
    func relaunched() throws -> MoltinFixture {
        try MoltinFixture(store: store, clock: clock, server: server)
    }

    @discardableResult
    func authenticate() async throws -> StoredToken {
        try await client.auth(clientId: StubMoltin.clientId, clientSecret: StubMoltin.clientSecret)
    }

    var storedBytes: Data? {
        get throws { try store.read(MoltinConfiguration.storeKey) }
    }
}

/// Runs `body` and returns the `OAuthError` it throws, or nil if it throws nothing or another error.
func oauthError<T>(_ body: () async throws -> T) async -> OAuthError? {
    do {
        _ = try await body()
        return nil
    } catch let error as OAuthError {
        return error
    } catch {
        return nil
    }
}
