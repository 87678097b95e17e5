import Foundation
import FlowCheckSDK
import FlowCheckTestSupport

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
/// let held = HeldTransport()
/// let transport = DeadlineTransport(base: held, clock: clock, timeout: 30)
/// let request = Task { try await transport.send(TransportRequest(url: url)) }
/// held.answer(.json(200, "{}"))                   // or: clock.advance(by: 31)
/// ```
final class HeldTransport: HTTPTransport, @unchecked Sendable {
    private typealias Resume = @Sendable (Result<TransportResponse, any Error>) -> Void

    private let lock = NSLock()
    private let limit: Duration
    private var waiting: [(id: Int, resume: Resume)] = []
    private var early: [Result<TransportResponse, any Error>] = []
    private var sends = 0
    private var cancellations = 0

    /// - Parameter limit: The longest real time a send waits for its answer or cancellation.
    init(limit: Duration = .seconds(60)) {
        self.limit = limit
    }

    /// How many sends have started.
    var sendCount: Int { locked { sends } }

    /// How many sends ended because their task was cancelled.
    var cancelledCount: Int { locked { cancellations } }

    /// Answers the oldest waiting send, or the next one to start.
    func answer(_ result: Result<TransportResponse, any Error>) {
        let resume = locked { () -> Resume? in
            guard !waiting.isEmpty else {
                early.append(result)
                return nil
            }
            return waiting.removeFirst().resume
        }
        resume?(result)
    }

    /// Answers the oldest waiting send, or the next one to start, with `response`.
    func answer(_ response: TransportResponse) {
        answer(.success(response))
    }

    func send(_ request: TransportRequest) async throws -> TransportResponse {
        let id = locked { () -> Int in
            sends += 1
            return sends
        }
        do {
            return try await boundedWait("HeldTransport: send #\(id) neither answered nor cancelled", within: limit) { resume in
                let ready = locked { () -> Result<TransportResponse, any Error>? in
                    guard early.isEmpty else { return early.removeFirst() }
                    waiting.append((id, resume))
                    return nil
                }
                if let ready {
                    resume(ready)
                }
            }
        } catch is CancellationError {
            locked {
                cancellations += 1
                waiting.removeAll { $0.id == id }
            }
            throw CancellationError()
        } catch let error as WaitTimedOut {
            locked { waiting.removeAll { $0.id == id } }
            throw error
        }
    }

    private func locked<T>(_ body: () throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }
}
