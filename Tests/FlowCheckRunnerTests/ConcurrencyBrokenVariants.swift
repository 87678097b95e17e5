import Foundation
import FlowCheckCoreDriver
import FlowCheckProviders
import FlowCheckRunner
import FlowCheckSDK
import FlowCheckSpec

/// Broken SDKs for issue 11's concurrent flows (part i11d): defects that only show when an
/// app call runs while another is in flight.
enum ConcurrencyBrokenVariants {
    /// The session the SDK last wrote, kept in memory, and written back by a refresh's
    /// completion: a logout clears the store, but a refresh that was in flight when it
    /// happened puts the session back afterwards (the completion is not cancelled, and does
    /// not check that the session it refreshed still exists).
    static let refreshSurvivesLogout: any FlowDriver = RefreshWritesBackDriver()

    /// Renewal state kept per caller instead of per client: every `products` call that finds
    /// an expired token renews on its own (here: each call goes to its own client instance,
    /// all over the same store and credentials), so two concurrent calls send two token
    /// requests.
    static let renewalPerCall: any FlowDriver = RenewalPerCallDriver()

    /// A refused refresh ends whatever session is stored: the SDK clears the store on any
    /// `invalid_grant` from the refresh endpoint, without checking that the stored session is
    /// still the one refreshed (our core before CLV-FULL-22: another instance had rotated the
    /// pair first, and the stale refusal logged the user out of the newer session).
    static let staleRefusalEndsSession: any FlowDriver = StaleRefusalDriver()

    private final class Memory: @unchecked Sendable {
        private let lock = NSLock()
        private var written: [String: Data] = [:]
        var store: (any TokenStore)?

        func remember(_ data: Data, for key: String) {
            lock.lock(); written[key] = data; lock.unlock()
        }

        var all: [String: Data] {
            lock.lock(); defer { lock.unlock() }
            return written
        }
    }

    private struct RememberingStore: TokenStore {
        let base: any TokenStore
        let memory: Memory

        func read(_ key: String) throws -> Data? { try base.read(key) }
        func write(_ data: Data, for key: String) throws {
            try base.write(data, for: key)
            memory.remember(data, for: key)
        }
        func delete(_ key: String) throws { try base.delete(key) }
        func keys() throws -> [String] { try base.keys() }
    }

    private struct WriteBackTransport: HTTPTransport {
        let base: any HTTPTransport
        let memory: Memory

        func send(_ request: TransportRequest) async throws -> TransportResponse {
            let response = try await base.send(request)
            if request.url.path.hasSuffix("/oauth/v2/refresh"), (200..<300).contains(response.status), let store = memory.store {
                for (key, data) in memory.all { try? store.write(data, for: key) }
            }
            return response
        }
    }

    private struct RefreshWritesBackDriver: FlowDriver {
        let name = "a refresh that survives a logout"

        func makeSession(for context: DriverContext) async throws -> any FlowSession {
            // One memory per flow: flows run in parallel.
            let memory = Memory()
            let core = CoreSDKDriver(
                name: name,
                transport: { WriteBackTransport(base: $0, memory: memory) },
                store: { base in
                    memory.store = base
                    return RememberingStore(base: base, memory: memory)
                }
            )
            return try await core.makeSession(for: context)
        }
    }

    private struct ClearingOnRefusalTransport: HTTPTransport {
        let base: any HTTPTransport
        let memory: Memory

        func send(_ request: TransportRequest) async throws -> TransportResponse {
            let response = try await base.send(request)
            if request.url.path.hasSuffix("/oauth/v2/refresh"), response.status == 400 || response.status == 401, let store = memory.store {
                for key in (try? store.keys()) ?? [] { try? store.delete(key) }
            }
            return response
        }
    }

    private struct StaleRefusalDriver: FlowDriver {
        let name = "a stale refresh refusal ends the newer session"

        func makeSession(for context: DriverContext) async throws -> any FlowSession {
            let memory = Memory()
            let core = CoreSDKDriver(
                name: name,
                transport: { ClearingOnRefusalTransport(base: $0, memory: memory) },
                store: { base in
                    memory.store = base
                    return base
                }
            )
            return try await core.makeSession(for: context)
        }
    }

    private struct RenewalPerCallDriver: FlowDriver {
        let name = "a renewal per call"

        func makeSession(for context: DriverContext) async throws -> any FlowSession {
            let core = CoreSDKDriver(name: name)
            // Two clients over the same store: auth goes to both, products alternate.
            return PerCallSession(clients: [try await core.makeSession(for: context), try await core.makeSession(for: context)])
        }
    }

    private final class PerCallSession: FlowSession, @unchecked Sendable {
        let clients: [any FlowSession]
        private let lock = NSLock()
        private var next = 0

        init(clients: [any FlowSession]) {
            self.clients = clients
        }

        func perform(_ call: AppCall) async throws -> CallOutcome {
            guard call.name == "products" else {
                var first: CallOutcome?
                for client in clients {
                    let outcome = try await client.perform(call)
                    if first == nil { first = outcome }
                }
                return first!
            }
            let index: Int = { lock.lock(); defer { next += 1; lock.unlock() }; return next % clients.count }()
            return try await clients[index].perform(call)
        }

        func storeContents() async throws -> [String: String] { try await clients[0].storeContents() }
        func close() async { for client in clients { await client.close() } }
    }
}
