import Foundation
import FlowCheckFakeServer
import FlowCheckRunner
import FlowCheckSDK

/// What the generated flow's three requests cost through the SDK's production transport alone:
/// no spec, runner, judge, store or report. A fresh `URLSessionTransport` per flow (the core
/// driver makes one per flow), the token, refresh and products requests of
/// ``GeneratedFlows``, against one fake Moltin in this process, as many flows at once as the
/// runner runs. The marginal cost between two counts is the floor under the `flows` figure's:
/// however cheap the harness became, a flow would still cost this.
struct TransportFloorBenchmark {
    let count: Int
    /// Flows at once; nil for the runner's default (four times the cores).
    var concurrency: Int?

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
        let width = concurrency ?? FlowRunner.Options.defaultConcurrency
        let total = max(1, count)
        let cpuBefore = ProcessCPU.seconds()
        let (failure, seconds) = await Stopwatch.time {
            await withTaskGroup(of: String?.self) { group -> String? in
                var started = 0
                var failure: String?
                while started < min(width, total) {
                    started += 1
                    group.addTask { await Self.flow(base: base, client: client) }
                }
                while let result = await group.next() {
                    if failure == nil, let result { failure = result }
                    if started < total {
                        started += 1
                        group.addTask { await Self.flow(base: base, client: client) }
                    }
                }
                return failure
            }
        }
        let cpuSeconds = ProcessCPU.seconds() - cpuBefore
        if let failure { throw .harness("transport floor: \(failure)") }
        return FlowThroughputBenchmark.Figure(count: total, seconds: seconds, cpuSeconds: cpuSeconds)
    }

    /// One flow's requests on a transport of its own; what went wrong, or nil.
    private static func flow(base: String, client: MoltinFixture.Client) async -> String? {
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
