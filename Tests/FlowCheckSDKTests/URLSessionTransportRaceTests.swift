import Foundation
import FlowCheckTestLanes
import Testing
import FlowCheckSDK
import FlowCheckFakeServer
import FlowCheckTestSupport

/// The transport creates, resumes and cancels its data tasks on a queue of its own, so a send's
/// start is asynchronous to its caller. These hammer the orderings that makes possible (written
/// by a reviewer of that change; none found a fault then, each would catch a lost or doubled
/// resume, a leaked task or a crash on an invalidated session).
// Serialized: the many-transports test fills the transports' one starting queue, and the
// others' sends would wait behind it (on a loaded machine, for over a minute).
@Suite(.integration, .serialized, .timeLimit(.minutes(20)))
struct URLSessionTransportRaceTests {
    /// What a send ended with, without its payload.
    enum Ending: Equatable, CustomStringConvertible {
        case status(Int)
        case cancelled
        case transport(String)
        case other(String)

        var description: String {
            switch self {
            case .status(let code): "status \(code)"
            case .cancelled: "cancelled"
            case .transport(let message): "transport: \(message)"
            case .other(let message): "other: \(message)"
            }
        }
    }

    static func ending(_ task: Task<TransportResponse, any Error>, _ what: String) async throws -> Ending {
        do {
            return .status(try await boundedValue(of: task, within: HangBound.standard, waitingFor: what).status)
        } catch is CancellationError {
            return .cancelled
        } catch let error as OAuthError where error.code == .transport {
            return .transport(error.description)
        } catch let error as WaitTimedOut {
            throw error
        } catch {
            return .other("\(error)")
        }
    }

    @Test("invalidate racing a send from another task: the send ends, with .transport, never a crash or hang")
    func invalidateRacesSend() async throws {
        // Held for the whole test: a port merely closed may go to another suite's server.
        let refusing = try RefusingPort()
        defer { withExtendedLifetime(refusing) {} }
        let url = try #require(URL(string: "http://127.0.0.1:\(refusing.port)/x"))
        for round in 0..<300 {
            let transport = URLSessionTransport(timeout: HangBound.seconds)
            let task = Task.detached { try await transport.send(TransportRequest(url: url)) }
            if round % 2 == 0 {
                // From a thread of Dispatch's own, as a session's onClose could run.
                let spin = round % 7
                DispatchQueue.global().async {
                    for _ in 0..<(spin * 50) { _ = ProcessInfo.processInfo.systemUptime }
                    transport.invalidate()
                }
            } else {
                for _ in 0..<(round % 4) { await Task.yield() }
                transport.invalidate()
            }
            let ending = try await Self.ending(task, "send \(round) raced by invalidate")
            if case .transport = ending {} else { Issue.record("round \(round): \(ending)") }
        }
    }

    /// A fake Moltin on loopback, its products URL and a transport of the SDK's, for `body`.
    static func withProducts(_ body: (FakeProviderServer, URL, URLSessionTransport) async throws -> Void) async throws {
        let client = MoltinFixture.Client(id: "race-client", secret: "race-secret-1")
        let epoch = Date(timeIntervalSince1970: 1_767_225_600)
        let server = FakeProviderServer(provider: FakeMoltin(fixture: MoltinFixture(clients: [client])), now: { epoch })
        try server.start()
        defer { server.stop() }
        let url = try #require(URL(string: "http://127.0.0.1:\(server.port)/v1/products"))
        let transport = URLSessionTransport(timeout: HangBound.seconds)
        defer { transport.invalidate() }
        try await body(server, url, transport)
    }

    @Test("a send cancelled at any moment ends (response or CancellationError) and the transport keeps working")
    func cancelAtAnyMoment() async throws {
        try await Self.withProducts { _, url, transport in
            for round in 0..<300 {
                let task = Task { try await transport.send(TransportRequest(url: url, headers: [("Authorization", "Bearer nope")])) }
                for _ in 0..<(round % 6) { await Task.yield() }
                task.cancel()
                let ending = try await Self.ending(task, "send \(round) cancelled")
                switch ending {
                case .status(401), .cancelled: break
                default: Issue.record("round \(round): \(ending)")
                }
            }
            let last = Task { try await transport.send(TransportRequest(url: url, headers: [("Authorization", "Bearer nope")])) }
            #expect(try await Self.ending(last, "the send after the cancelled ones") == .status(401))
        }
    }

    @Test("sixteen concurrent sends on one transport each answered 401 with a Basic challenge get their own 401")
    func concurrentBasicChallenges() async throws {
        let server = FakeProviderServer(provider: FakeClever(fixture: CleverWorld.fixture()), now: { Date(timeIntervalSince1970: 1_767_225_600) })
        try server.start()
        defer { server.stop() }
        let url = try #require(URL(string: "http://127.0.0.1:\(server.port)/oauth/tokens"))
        let transport = URLSessionTransport(timeout: HangBound.seconds)
        defer { transport.invalidate() }
        for round in 0..<5 {
            let tasks = (0..<16).map { _ in
                Task {
                    try await transport.send(TransportRequest(
                        method: "POST", url: url,
                        headers: [("Authorization", "Basic eDp5"), ("Content-Type", "application/x-www-form-urlencoded")],
                        body: Data("grant_type=authorization_code&code=c&redirect_uri=x".utf8)))
                }
            }
            for (index, task) in tasks.enumerated() {
                let response = try await boundedValue(of: task, within: HangBound.standard, waitingFor: "challenged send \(round).\(index)")
                #expect(response.status == 401)
                #expect(response.header("WWW-Authenticate")?.hasPrefix("Basic") == true)
            }
        }
    }

    @Test("a send cancelled behind a queue of starts still ends promptly, and never reaches the server")
    func cancelledBehindOthers() async throws {
        try await Self.withProducts { server, url, transport in
            let tasks = (0..<64).map { index in
                Task {
                    if index % 2 == 1 { withUnsafeCurrentTask { $0?.cancel() } }
                    return try await transport.send(TransportRequest(url: url, headers: [("Authorization", "Bearer nope")]))
                }
            }
            for (index, task) in tasks.enumerated() {
                let ending = try await Self.ending(task, "send \(index)")
                #expect(ending == (index % 2 == 1 ? .cancelled : .status(401)), "send \(index): \(ending)")
            }
            // The cancelled half never made a request: only the others reached the fake.
            #expect(server.exchanges.count == 32)
        }
    }

    /// More transports than Dispatch has threads (255), each with two requests at once, so
    /// starts wait on busy work queues: with a queue per transport they held every thread, the
    /// work queues they waited for never ran, and the process hung (a loaded `swift test` did).
    /// The transports share one queue now; every send must end.
    @Test("three hundred transports sending at once never run Dispatch out of threads")
    func manyTransportsAtOnce() async throws {
        try await Self.withProducts { server, url, _ in
            try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<300 {
                    group.addTask {
                        let transport = URLSessionTransport(timeout: HangBound.seconds)
                        defer { transport.invalidate() }
                        return try await withThrowingTaskGroup(of: Int.self) { sends in
                            for _ in 0..<2 {
                                sends.addTask { try await transport.send(TransportRequest(url: url, headers: [("Authorization", "Bearer nope")])).status }
                            }
                            var statuses = 0
                            for try await status in sends where status == 401 { statuses += 1 }
                            return statuses
                        }
                    }
                }
                var answered = 0
                for try await count in group { answered += count }
                #expect(answered == 600)
            }
            #expect(server.exchanges.count == 600)
        }
    }
}
