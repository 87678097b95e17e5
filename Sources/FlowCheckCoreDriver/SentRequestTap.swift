import FlowCheckFakeServer
import FlowCheckRunner
import FlowCheckSDK
import FlowCheckSpec
import Foundation

/// The network boundary of our SDK core in a flow: every request the SDK's transport stack
/// hands to URLSession passes here and is recorded, whether it reaches a fake or not, so the
/// runner's INV-ORIGIN can judge where credentials went.
final class SentRequestTap: HTTPTransport {
    private let base: any HTTPTransport
    private let sent = Locked<[SentRequest]>([])

    init(base: any HTTPTransport) {
        self.base = base
    }

    func send(_ request: TransportRequest) async throws -> TransportResponse {
        let record = SentRequest(method: request.method, url: request.url, headers: request.headers, body: request.body ?? Data())
        sent.withLock { $0.append(record) }
        return try await base.send(request)
    }

    var requests: [SentRequest] { sent.withLock { $0 } }
}

/// A session that answers ``FlowSession/sentRequests()`` from the tap under its SDK and hands
/// everything else to the session it wraps.
final class TappedSession: FlowSession {
    private let inner: any FlowSession
    private let tap: SentRequestTap

    init(_ inner: any FlowSession, tap: SentRequestTap) {
        self.inner = inner
        self.tap = tap
    }

    func perform(_ call: AppCall) async throws -> CallOutcome { try await inner.perform(call) }
    func performInBackground(_ call: AppCall, underway: @escaping @Sendable () -> Void) async throws -> CallOutcome {
        try await inner.performInBackground(call, underway: underway)
    }
    func storeContents() async throws -> [String: String] { try await inner.storeContents() }
    func storeLocation() async throws -> StoreLocation? { try await inner.storeLocation() }
    func armStoreCrash(_ point: StoreCrashPoint) async throws -> StoreCrashSupport { try await inner.armStoreCrash(point) }
    func sentRequests() async -> [SentRequest]? { tap.requests }
    func close() async { await inner.close() }
}
