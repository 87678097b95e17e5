import FlowCheckFakeServer
import Foundation
import FlowCheckSDK

/// A transport whose requests wait until the test answers them: a server that never answers,
/// for `DeadlineTransport` tests.
///
/// Each `send` waits until `answer` delivers a result, its task is cancelled, or a real-time
/// bound passes; a cancelled send is counted and throws `CancellationError`, as
/// `URLSessionTransport` does, and a send nobody answered or cancelled throws ``WaitTimedOut``
/// naming it, so a test that forgot to end it fails instead of hanging. An answer given before
/// any send is kept for the next one, so a test need not know whether the request has arrived.
///
/// ```swift
/// let clock = ManualClock()
/// let held = HeldTransport()
/// let transport = DeadlineTransport(base: held, clock: clock, timeout: 30)
/// let request = Task { try await transport.send(TransportRequest(url: url)) }
/// try await clock.waitForSleepers(count: 1)
/// held.answer(TransportResponse(status: 204))     // or: clock.advance(by: 31) for the deadline
/// let response = try await request.value
/// ```
public final class HeldTransport: HTTPTransport, Sendable {
    private typealias Resume = @Sendable (Result<TransportResponse, any Error>) -> Void

    private struct State {
        var waiting: [(id: Int, resume: Resume)] = []
        var early: [Result<TransportResponse, any Error>] = []
        var sends = 0
        var cancellations = 0
    }

    private let limit: Duration
    private let state = Locked(State())

    /// Creates a transport that holds every send.
    /// - Parameter limit: The longest real time a send waits for its answer or cancellation.
    public init(limit: Duration = HangBound.standard) {
        self.limit = limit
    }

    /// How many sends have started.
    public var sendCount: Int { state.withLock { $0.sends } }

    /// How many sends ended because their task was cancelled.
    public var cancelledCount: Int { state.withLock { $0.cancellations } }

    /// Answers the oldest waiting send, or the next one to start.
    public func answer(_ result: Result<TransportResponse, any Error>) {
        let resume = state.withLock { state -> Resume? in
            guard !state.waiting.isEmpty else {
                state.early.append(result)
                return nil
            }
            return state.waiting.removeFirst().resume
        }
        resume?(result)
    }

    /// Answers the oldest waiting send, or the next one to start, with `response`.
    public func answer(_ response: TransportResponse) {
        answer(.success(response))
    }

    /// Waits for the answer to this send.
    /// - Throws: The answered error; `CancellationError` when the task is cancelled first;
    ///   ``WaitTimedOut`` ("HeldTransport: send #N neither answered nor cancelled") when the
    ///   real-time limit passes first.
    public func send(_ request: TransportRequest) async throws -> TransportResponse {
        let id = state.withLock { state -> Int in
            state.sends += 1
            return state.sends
        }
        do {
            return try await boundedWait("HeldTransport: send #\(id) neither answered nor cancelled", within: limit) { resume in
                let ready = state.withLock { state -> Result<TransportResponse, any Error>? in
                    guard state.early.isEmpty else { return state.early.removeFirst() }
                    state.waiting.append((id, resume))
                    return nil
                }
                if let ready {
                    resume(ready)
                }
            }
        } catch is CancellationError {
            state.withLock { state in
                state.cancellations += 1
                state.waiting.removeAll { $0.id == id }
            }
            throw CancellationError()
        } catch let error as WaitTimedOut {
            state.withLock { $0.waiting.removeAll { $0.id == id } }
            throw error
        }
    }
}
