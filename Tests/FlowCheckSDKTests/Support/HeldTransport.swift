import Foundation
import FlowCheckSDK

/// A transport whose requests wait until the test answers them, or forever: a server that never
/// answers, for `DeadlineTransport` tests.
///
/// Each `send` waits on its own `AsyncStream` until `answer` delivers a result or its task is
/// cancelled; a cancelled send is counted and throws `CancellationError`, as `URLSessionTransport`
/// does. An answer given before any send is kept for the next one, so a test need not know
/// whether the request has arrived yet.
///
/// ```swift
/// let held = HeldTransport()
/// let transport = DeadlineTransport(base: held, clock: clock, timeout: 30)
/// let request = Task { try await transport.send(TransportRequest(url: url)) }
/// held.answer(.json(200, "{}"))                   // or: clock.advance(by: 31)
/// ```
final class HeldTransport: HTTPTransport, @unchecked Sendable {
    private let lock = NSLock()
    private typealias Answers = AsyncStream<Result<TransportResponse, any Error>>

    private var waiting: [(id: Int, continuation: Answers.Continuation)] = []
    private var early: [Result<TransportResponse, any Error>] = []
    private var sends = 0
    private var cancellations = 0

    /// How many sends have started.
    var sendCount: Int { locked { sends } }

    /// How many sends ended because their task was cancelled.
    var cancelledCount: Int { locked { cancellations } }

    /// Answers the oldest waiting send, or the next one to start.
    func answer(_ result: Result<TransportResponse, any Error>) {
        let continuation = locked { () -> Answers.Continuation? in
            guard !waiting.isEmpty else {
                early.append(result)
                return nil
            }
            return waiting.removeFirst().continuation
        }
        continuation?.yield(result)
        continuation?.finish()
    }

    /// Answers the oldest waiting send, or the next one to start, with `response`.
    func answer(_ response: TransportResponse) {
        answer(.success(response))
    }

    func send(_ request: TransportRequest) async throws -> TransportResponse {
        let (stream, continuation) = Answers.makeStream()
        let (id, ready) = locked { () -> (Int, Result<TransportResponse, any Error>?) in
            sends += 1
            guard early.isEmpty else { return (sends, early.removeFirst()) }
            waiting.append((sends, continuation))
            return (sends, nil)
        }
        if let ready {
            return try ready.get()
        }
        let result = await withTaskCancellationHandler {
            var answers = stream.makeAsyncIterator()
            return await answers.next()
        } onCancel: {
            continuation.finish()
        }
        guard let result else {
            locked {
                cancellations += 1
                waiting.removeAll { $0.id == id }
            }
            throw CancellationError()
        }
        return try result.get()
    }

    private func locked<T>(_ body: () throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }
}
