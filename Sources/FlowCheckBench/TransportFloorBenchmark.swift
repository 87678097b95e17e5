import Foundation
import FlowCheckFakeServer
import FlowCheckRunner
import FlowCheckSDK

/// What the generated flow's three requests cost without the harness: no spec, runner, judge or
/// report. A fresh `URLSessionTransport` per flow (the core driver makes one per flow), the
/// token, refresh and products requests of ``GeneratedFlows``, against one fake Moltin in this
/// process, as many flows at once as the runner runs. The marginal cost between two counts is
/// a floor under the `flows` figure's: however cheap the harness became, a flow would still
/// cost this.
struct TransportFloorBenchmark {
    /// What sends the three requests.
    enum Floor: Sendable {
        /// `URLSessionTransport` alone: the requests, built by hand, and nothing of the SDK.
        case transport
        /// The SDK under test as an app calls it: `MoltinClient`'s `auth`, `refreshToken` and
        /// `products` over that transport, with a `FileTokenStore` in a folder of the flow's
        /// own where the runner keeps flows' stores (as the core driver has it): the SDK's own
        /// JSON reading, token saves and store reads, which no harness work can take off either.
        case sdk
    }

    let count: Int
    /// Flows at once; nil for the runner's default (four times the cores).
    var concurrency: Int?
    var floor: Floor = .transport

    /// The fixed virtual time the fake judges tokens by: nothing expires during the run.
    private static let epoch = Date(timeIntervalSince1970: 1_767_225_600)

    /// - Throws: ``BenchError`` when the server will not start or an answer is not 200.
    func run() async throws(BenchError) -> FlowThroughputBenchmark.Figure {
        let client = MoltinFixture.Client(id: "floor-client", secret: "floor-secret-1")
        let epoch = Self.epoch
        let server = FakeProviderServer(provider: FakeMoltin(fixture: MoltinFixture(clients: [client])), now: { epoch })
        do {
            try server.start()
        } catch {
            throw .harness("the fake server would not start: \(error)")
        }
        defer { server.stop() }
        let base = "http://127.0.0.1:\(server.port)"
        let floor = self.floor
        let width = concurrency ?? FlowRunner.Options.defaultConcurrency
        let total = max(1, count)
        let cpuBefore = ProcessCPU.seconds()
        let (failure, seconds) = await Stopwatch.time {
            await withTaskGroup(of: String?.self) { group -> String? in
                var started = 0
                var failure: String?
                while started < min(width, total) {
                    started += 1
                    group.addTask { await Self.flow(floor, base: base, client: client) }
                }
                while let result = await group.next() {
                    if failure == nil, let result { failure = result }
                    if started < total {
                        started += 1
                        group.addTask { await Self.flow(floor, base: base, client: client) }
                    }
                }
                return failure
            }
        }
        let cpuSeconds = ProcessCPU.seconds() - cpuBefore
        if let failure { throw .harness("transport floor: \(failure)") }
        return FlowThroughputBenchmark.Figure(count: total, seconds: seconds, cpuSeconds: cpuSeconds)
    }

    /// One flow's requests as `floor` sends them; what went wrong, or nil.
    private static func flow(_ floor: Floor, base: String, client: MoltinFixture.Client) async -> String? {
        switch floor {
        case .transport: await transportFlow(base: base, client: client)
        case .sdk: await sdkFlow(base: base, client: client)
        }
    }

    /// The three calls through the SDK, with a store folder made and removed for the flow.
    private static func sdkFlow(base: String, client: MoltinFixture.Client) async -> String? {
        let transport = URLSessionTransport()
        defer { transport.invalidate() }
        let scratch = FlowStorage.root.appendingPathComponent("flowcheck-floor-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        do {
            let store = try FileTokenStore(directory: scratch.appendingPathComponent("tokens"))
            let configuration = try MoltinConfiguration(baseURL: URL(string: base)!)
            let sdk = MoltinClient(configuration: configuration, transport: transport, store: store, clock: FixedTime(now: epoch))
            _ = try await sdk.auth(clientId: client.id, clientSecret: client.secret)
            _ = try await sdk.refreshToken()
            let products = try await sdk.products()
            return products.isEmpty ? "the products call returned none" : nil
        } catch {
            return "a call failed: \(error)"
        }
    }

    /// The SDK's clock, stopped at the fake's time: nothing expires during the run.
    private struct FixedTime: TimeSource {
        let now: Date
        func sleep(until deadline: Date) async throws {}
    }

    /// One flow's requests on a transport of its own; what went wrong, or nil.
    private static func transportFlow(base: String, client: MoltinFixture.Client) async -> String? {
        let transport = URLSessionTransport()
        defer { transport.invalidate() }
        do {
            let form = "grant_type=client_credentials&client_id=\(client.id)&client_secret=\(client.secret)"
            guard let first = try await token(base: base, form: form) else { return "the token request failed" }
            let refresh = "grant_type=refresh_token&client_id=\(client.id)&client_secret=\(client.secret)&refresh_token=\(first)"
            guard let token = try await token(base: base, form: refresh) else { return "the refresh request failed" }
            let products = try await transport.send(TransportRequest(
                url: URL(string: base + "/v1/products")!, headers: [("Authorization", "Bearer " + token)]
            ))
            return products.status == 200 ? nil : "the products request got \(products.status)"
        } catch {
            return "a request failed: \(error)"
        }

        /// The access token a 200 answer to `form` at the token endpoint carries, or nil.
        func token(base: String, form: String) async throws -> String? {
            let answer = try await transport.send(TransportRequest(
                method: "POST", url: URL(string: base + "/oauth/access_token")!,
                headers: [("Content-Type", "application/x-www-form-urlencoded")], body: Data(form.utf8)
            ))
            guard answer.status == 200,
                  let object = try? JSONSerialization.jsonObject(with: answer.body) as? [String: Any] else { return nil }
            return object["access_token"] as? String
        }
    }
}
