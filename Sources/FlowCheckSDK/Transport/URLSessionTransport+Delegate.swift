import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Refuses every redirect so the 3xx itself reaches the SDK (with its `Location`), and never
/// answers an authentication challenge: the SDK sends its own `Authorization` header.
final class RedirectRefusingDelegate: NSObject, URLSessionTaskDelegate, Sendable {
    /// The 401/407 answers whose challenge was refused, by task identifier.
    let challenged = Locked<[Int: HTTPURLResponse]>([:])

    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest,
        completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }

    /// A 401 with `WWW-Authenticate: Basic` (RFC 6749 §5.2 asks token endpoints to send one)
    /// makes FoundationNetworking's URLSession wait forever under default handling (measured
    /// here: no completion in 30 s). On Linux the challenge is cancelled and the 401 is handed
    /// back from `failureResponse` without its body; Apple's URLSession delivers the 401 itself.
    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        #if canImport(FoundationNetworking)
        if let response = challenge.failureResponse as? HTTPURLResponse {
            challenged.withLock { $0[task.taskIdentifier] = response }
        }
        completionHandler(.cancelAuthenticationChallenge, nil)
        #else
        completionHandler(.performDefaultHandling, nil)
        #endif
    }

    /// The refused challenge's answer for a task, removed once read.
    func takeChallengedResponse(for taskIdentifier: Int) -> HTTPURLResponse? {
        challenged.withLock { $0.removeValue(forKey: taskIdentifier) }
    }
}

/// The data task of one `send`, and whether the caller cancelled before or after it started.
///
/// Creating and resuming the task happen under the lock, so a cancellation either prevents the
/// task (the caller gets `CancellationError` when the transport's queue reaches its start) or
/// cancels the running one; never neither. The transport calls both on its (shared) queue.
final class PendingTask: Sendable {
    enum Start {
        case started
        case cancelled
        case refused
    }

    private struct State {
        var task: URLSessionDataTask?
        var isCancelled = false
    }

    private let state = Locked(State())

    func startUnlessCancelled(_ makeTask: () -> URLSessionDataTask?) -> Start {
        state.withLock { state in
            if state.isCancelled { return .cancelled }
            guard let created = makeTask() else { return .refused }
            state.task = created
            created.resume()
            return .started
        }
    }

    func cancel() {
        let running = state.withLock { state -> URLSessionDataTask? in
            state.isCancelled = true
            return state.task
        }
        running?.cancel()
    }
}
