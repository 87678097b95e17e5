import Foundation
import FlowCheckFakeServer
import FlowCheckProviders
import FlowCheckRunner
import FlowCheckServe
import FlowCheckSpec

/// `flowcheck serve` for the long run, through the same host (`FakeProviderHost`, every
/// default provider, each exchange logged through a `LogQueue` and the host's redactor):
///
/// - throughput: `GET /v1/products` on a fresh host, then on one that has issued `tokens`
///   tokens; the second must stay within 20% of the first (it fell 200-fold once, when the
///   redactor was rebuilt from every issued secret per exchange);
/// - memory: the resident set after `baselineSeconds` of mixed traffic of every provider
///   (``MixedTraffic``: each one's whole flow, issuing codes and tokens every round) and after
///   `soakSeconds`; the growth must stay under 20 MiB (it was about 410 bytes a request once,
///   and about 3 KiB a token issued until the fakes forgot their oldest secrets).
struct ServeSoakBenchmark {
    struct Figure {
        var tokens: Int
        var freshPerSecond: Double
        var afterTokensPerSecond: Double
        var baselineSeconds: Double
        var soakSeconds: Double
        var residentAtBaseline: Int?
        var residentAtEnd: Int?
        var logLines: Int
        /// Rounds of every provider's flow, and tokens issued in them, during the soak.
        var mixedRounds: Int
        var mixedTokens: Int

        var throughputRatio: Double { afterTokensPerSecond / max(freshPerSecond, 1) }
        var growthMiB: Double? {
            guard let start = residentAtBaseline, let end = residentAtEnd else { return nil }
            return Double(end - start) / 1_048_576
        }
        var throughputHolds: Bool { throughputRatio >= 0.8 }
        var memoryHolds: Bool { (growthMiB ?? 0) <= 20 }

        var lines: [String] {
            let memory = growthMiB.map { "\(Format.fixed($0, 1)) MiB" } ?? "unknown (no /proc/self/status)"
            return [
                "serve req/s, fresh host: \(Format.whole(freshPerSecond))",
                "serve req/s, after \(tokens) tokens issued: \(Format.whole(afterTokensPerSecond)) (\(Format.whole(throughputRatio * 100))% of fresh; must be ≥ 80%: \(throughputHolds ? "holds" : "FAILS"))",
                "serve resident memory growth from \(Format.whole(baselineSeconds)) s to \(Format.whole(soakSeconds)) s of mixed traffic of every provider (\(mixedRounds) flows, \(mixedTokens) tokens): \(memory) (must be ≤ 20 MiB: \(memoryHolds ? "holds" : "FAILS"))",
                "serve log lines written: \(logLines)",
            ]
        }
    }

    var tokens = 10_000
    var connections = 4
    /// How long each throughput figure is measured.
    var throughputSeconds: Double = 5
    var baselineSeconds: Double = 60
    var soakSeconds: Double = 600

    func run() throws(BenchError) -> Figure {
        // Log lines the queue wrote, counted on its writer thread.
        let written = Locked(0)
        let fresh = try Self.startHost(written)
        let freshRate = try Self.load(fresh, token: fresh.token, connections: connections, seconds: throughputSeconds).perSecond
        fresh.host.stop()

        let soaked = try Self.startHost(written)
        defer { soaked.host.stop() }
        let tokenRequest = Self.tokenRequest(port: soaked.port)
        let issuers = try (0..<connections).map { _ throws(BenchError) in try LoadConnection(port: soaked.port) }
        for number in 0..<tokens {
            let status = try issuers[number % issuers.count].roundTrip(tokenRequest)
            guard status == 200 else { throw .harness("the fake Moltin answered \(status) to a token request") }
        }
        // The latest token: the fakes keep only their latest few thousand, and the first is long forgotten.
        let latest = try Self.issueToken(issuers[0], port: soaked.port)
        let afterRate = try Self.load(soaked, token: latest, connections: connections, seconds: throughputSeconds).perSecond

        let traffic = MixedTraffic(endpoints: soaked.endpoints)
        let tally = MixedTraffic.Tally()
        traffic.run(until: ContinuousClock.now + .seconds(baselineSeconds), tally: tally)
        let baseline = ResidentMemory.bytes()
        traffic.run(until: ContinuousClock.now + .seconds(max(soakSeconds - baselineSeconds, 0)), tally: tally)
        let end = ResidentMemory.bytes()
        _ = soaked.queue.finish(within: 5)
        if let failure = tally.failure { throw .harness("mixed traffic: \(failure)") }
        return Figure(
            tokens: tokens, freshPerSecond: freshRate, afterTokensPerSecond: afterRate, baselineSeconds: baselineSeconds,
            soakSeconds: soakSeconds, residentAtBaseline: baseline, residentAtEnd: end, logLines: written.withLock { $0 },
            mixedRounds: tally.rounds, mixedTokens: tally.tokens)
    }

    struct Running {
        let host: FakeProviderHost
        let queue: LogQueue
        let port: Int
        let token: String
        let endpoints: [FakeProviderHost.Endpoint]
    }

    /// `serve`'s host over the default fixtures, logging into a queue whose writer only counts.
    static func startHost(_ written: Locked<Int>) throws(BenchError) -> Running {
        let queue = LogQueue(write: { _ in written.withLock { $0 += 1 } })
        let fixtures: [(Provider, any ProviderFixture)]
        do {
            fixtures = try SpecLoader.standard.decodeFixtures(Array(FakeProviderHost.defaultFixtureJSON.utf8), file: "(default fixture)")
        } catch {
            throw .harness("the default serve fixture does not load: \(error)")
        }
        let host = FakeProviderHost(fixtures: fixtures, now: { Date() }, log: { queue.enqueue($0) })
        let endpoints: [FakeProviderHost.Endpoint]
        do {
            endpoints = try host.start()
        } catch {
            throw .harness("the serve host would not start: \(error)")
        }
        guard let position = endpoints.firstIndex(where: { $0.provider.rawValue == "moltin" }), let port = endpoints[position].baseURL.port else {
            host.stop()
            throw .harness("the default serve fixture has no Moltin")
        }
        let token: String
        do {
            token = try issueToken(try LoadConnection(port: port), port: port)
        } catch {
            host.stop()
            throw error
        }
        return Running(host: host, queue: queue, port: port, token: token, endpoints: endpoints)
    }

    /// A fresh Moltin token, read from the answer.
    private static func issueToken(_ connection: LoadConnection, port: Int) throws(BenchError) -> String {
        let answer = try connection.exchange(tokenRequest(port: port))
        guard answer.status == 200, case .object(let fields)? = FakeJSON.parse(Data(answer.body.utf8)), case .string(let token)? = fields["access_token"] else {
            throw .harness("the serve host's Moltin issued no token (\(answer.status))")
        }
        return token
    }

    private static func tokenRequest(port: Int) -> [UInt8] {
        let body = "grant_type=client_credentials&client_id=serve-client&client_secret=serve-secret-1234"
        return Array("POST \(FakeMoltin.tokenPath) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)".utf8)
    }

    /// `GET /v1/products` with a valid token on `connections` keep-alive connections for
    /// `seconds`; requests per second over all of them.
    private static func load(_ running: Running, token: String, connections: Int, seconds: Double) throws(BenchError) -> (requests: Int, perSecond: Double) {
        guard seconds > 0 else { return (0, 0) }
        let request = Array("GET /v1/products HTTP/1.1\r\nHost: 127.0.0.1:\(running.port)\r\nAuthorization: Bearer \(token)\r\n\r\n".utf8)
        let clients = try (0..<max(connections, 1)).map { _ throws(BenchError) in try LoadConnection(port: running.port) }
        let workers = clients.map { Worker(connection: $0, request: request) }
        let start = ContinuousClock.now
        let deadline = start + .seconds(seconds)
        let done = DispatchGroup()
        for worker in workers {
            done.enter()
            let thread = Thread {
                worker.run(until: deadline)
                done.leave()
            }
            thread.name = "flowcheck-bench.soak"
            thread.start()
        }
        done.wait()
        let elapsed = Stopwatch.seconds(ContinuousClock.now - start)
        if let failure = workers.lazy.compactMap(\.failure).first { throw .harness(failure) }
        let requests = workers.reduce(0) { $0 + $1.completed }
        return (requests, Double(requests) / max(elapsed, 1e-9))
    }

    /// One connection's share of the load, run on its own thread; read only after it finished.
    private final class Worker: Sendable {
        let connection: LoadConnection
        let request: [UInt8]
        /// What `run` counted, stored once as it ends (no lock per request).
        private let result = Locked<(completed: Int, failure: String?)>((0, nil))

        var completed: Int { result.withLock { $0.completed } }
        var failure: String? { result.withLock { $0.failure } }

        init(connection: LoadConnection, request: [UInt8]) {
            self.connection = connection
            self.request = request
        }

        func run(until deadline: ContinuousClock.Instant) {
            var completed = 0
            var failure: String?
            defer { result.withLock { $0 = (completed, failure) } }
            while ContinuousClock.now < deadline {
                do {
                    let status = try connection.roundTrip(request)
                    guard status == 200 else {
                        failure = "the serve host answered \(status), not 200"
                        return
                    }
                } catch {
                    failure = error.description
                    return
                }
                completed += 1
            }
        }
    }
}
