import Foundation
import FlowCheckFakeServer
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Requests per second and per-request latency of the fake Moltin on loopback: a raw-socket
/// client, several keep-alive connections on their own threads, one request in flight on each.
///
/// The request is the one every flow makes most: `GET /v1/products` with a valid bearer token,
/// so the figure covers parsing, the fault check, the provider, the recording and the JSON answer.
struct HTTPLoadBenchmark {
    struct Figure {
        var target: Target
        var connections: Int
        var requests: Int
        var seconds: Double
        /// CPU seconds of client and server together (they share the machine).
        var cpuSeconds: Double
        /// Every request's round trip, in nanoseconds, sorted.
        var latencies: [UInt64]

        var perSecond: Double { Double(requests) / seconds }

        /// The `quantile` latency in milliseconds (nearest rank).
        func latency(_ quantile: Double) -> Double {
            guard !latencies.isEmpty else { return 0 }
            let rank = Int((quantile * Double(latencies.count)).rounded(.up)) - 1
            return Double(latencies[min(max(rank, 0), latencies.count - 1)]) / 1e6
        }

        var lines: [String] {
            [
                "req/s (keep-alive, \(connections) connections, \(requests) requests\(target == .fakeMoltin ? "" : ", " + target.rawValue)): \(Format.whole(perSecond)) req/s",
                "latency p50: \(Format.fixed(latency(0.50), 2)) ms",
                "latency p99: \(Format.fixed(latency(0.99), 2)) ms",
            ]
        }

        var cpuLine: String { "cpu per request (client + server): \(Format.fixed(cpuSeconds / Double(max(requests, 1)) * 1e6, 1)) µs" }
    }

    /// What answers: the fake Moltin (the figure), or the bare HTTP layer (to tell the two apart).
    enum Target: String {
        case fakeMoltin = "fake Moltin"
        case trivialResponder = "HTTPServer, trivial responder"
    }

    let connections: Int
    let requests: Int
    var target = Target.fakeMoltin
    /// Untimed round trips per connection first, so threads, sockets and caches are warm.
    var warmUp = 200

    /// The fixed virtual time the fake judges tokens by: nothing expires during the run.
    private static let epoch = Date(timeIntervalSince1970: 1_767_225_600)

    /// - Throws: ``BenchError`` when the server will not start, a connection fails or any
    ///   answer is not 200.
    func run() throws(BenchError) -> Figure {
        let port: Int
        let token: String
        let stop: () -> Void
        switch target {
        case .fakeMoltin:
            let provider = FakeMoltin(fixture: MoltinFixture(clients: [MoltinFixture.Client(id: "bench-client", secret: "bench-secret-1")]))
            let epoch = Self.epoch
            let server = FakeProviderServer(provider: provider, now: { epoch })
            do {
                try server.start()
            } catch {
                throw .harness("the fake server would not start: \(error)")
            }
            stop = { server.stop() }
            token = try Self.issueToken(server)
            port = server.port
        case .trivialResponder:
            let server = HTTPServer(responder: ClosureResponder { _ in HTTPResponse.text(200, "ok") })
            do {
                port = try server.start()
            } catch {
                throw .harness("the server would not start: \(error)")
            }
            stop = { server.stop() }
            token = "unused"
        }
        defer { stop() }
        let request = Array("GET /v1/products HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nAuthorization: Bearer \(token)\r\nAccept: application/json\r\n\r\n".utf8)

        let count = max(1, connections)
        let perConnection = max(1, requests / count)
        var clients: [LoadConnection] = []
        for _ in 0..<count { clients.append(try LoadConnection(port: port)) }
        for client in clients {
            for _ in 0..<warmUp { try Self.expectOK(client.roundTrip(request)) }
        }

        let workers = clients.map { Worker(connection: $0, request: request, count: perConnection) }
        let go = DispatchSemaphore(value: 0)
        let done = DispatchGroup()
        for worker in workers {
            done.enter()
            let thread = Thread {
                go.wait()
                worker.run()
                done.leave()
            }
            thread.name = "flowcheck-bench.client"
            thread.start()
        }
        let cpuBefore = ProcessCPU.seconds()
        let start = ContinuousClock.now
        for _ in workers { go.signal() }
        done.wait()
        let seconds = Stopwatch.seconds(ContinuousClock.now - start)
        let cpuSeconds = ProcessCPU.seconds() - cpuBefore

        if let failure = workers.lazy.compactMap(\.failure).first { throw .harness(failure) }
        let latencies = workers.flatMap(\.latencies).sorted()
        return Figure(target: target, connections: count, requests: latencies.count, seconds: seconds, cpuSeconds: cpuSeconds, latencies: latencies)
    }

    /// One connection's share of the load, run on its own thread; read only after it finished.
    private final class Worker: Sendable {
        let connection: LoadConnection
        let request: [UInt8]
        let count: Int
        /// What `run` measured: room for every latency made before the run starts, taken out
        /// by `run` and stored back once as it ends (no lock per request).
        private let result: Locked<(latencies: [UInt64], failure: String?)>

        var latencies: [UInt64] { result.withLock { $0.latencies } }
        var failure: String? { result.withLock { $0.failure } }

        init(connection: LoadConnection, request: [UInt8], count: Int) {
            self.connection = connection
            self.request = request
            self.count = count
            var latencies: [UInt64] = []
            latencies.reserveCapacity(count)
            result = Locked((latencies, nil))
        }

        func run() {
            // Taken out, not copied: the lock's value lets go of the buffer, so appends reuse it.
            var latencies = result.withLock { result in
                defer { result.latencies = [] }
                return result.latencies
            }
            var failure: String?
            defer { result.withLock { $0 = (latencies, failure) } }
            for _ in 0..<count {
                let started = Self.nanoseconds()
                do {
                    try HTTPLoadBenchmark.expectOK(connection.roundTrip(request))
                } catch {
                    failure = error.description
                    return
                }
                latencies.append(Self.nanoseconds() - started)
            }
        }

        /// The monotonic clock, cheaply (vDSO), for per-request timing.
        private static func nanoseconds() -> UInt64 {
            var now = timespec()
            clock_gettime(CLOCK_MONOTONIC, &now)
            return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
        }
    }

    private static func expectOK(_ status: Int) throws(BenchError) {
        guard status == 200 else { throw .harness("the fake answered \(status), not 200") }
    }

    /// A token from the fake's token endpoint, through the responder seam (no socket needed).
    private static func issueToken(_ server: FakeProviderServer) throws(BenchError) -> String {
        let request = HTTPRequest(
            method: "POST", target: FakeMoltin.tokenPath,
            headers: ["Host": "127.0.0.1", "Content-Type": "application/x-www-form-urlencoded"],
            body: Data("grant_type=client_credentials&client_id=bench-client&client_secret=bench-secret-1".utf8)
        )
        let response = server.responder.respond(to: request)
        guard response.status == 200, case .object(let fields)? = response.jsonBody, case .string(let token)? = fields["access_token"] else {
            throw .harness("the fake issued no token: \(response.status) \(response.bodyText)")
        }
        return token
    }
}
