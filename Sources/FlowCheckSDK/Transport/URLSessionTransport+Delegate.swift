import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Refuses every redirect so the 3xx itself reaches the SDK (with its `Location`).
final class RedirectRefusingDelegate: NSObject, URLSessionTaskDelegate, Sendable {
    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest,
        completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }
}

/// The data task of one `send`, and whether the caller cancelled before or after it started.
///
/// Creating and resuming the task happen under the lock, so a cancellation either prevents the
/// task (the caller gets `CancellationError` at once) or cancels the running one; never neither.
final class PendingTask: @unchecked Sendable {
    enum Start {
        case started
        case cancelled
        case refused
    }

    private let lock = NSLock()
    private var task: URLSessionDataTask?
    private var isCancelled = false

    func startUnlessCancelled(_ makeTask: () -> URLSessionDataTask?) -> Start {
        lock.lock()
        defer { lock.unlock() }
        if isCancelled { return .cancelled }
        guard let created = makeTask() else { return .refused }
        task = created
        created.resume()
        return .started
    }

    func cancel() {
        lock.lock()
        isCancelled = true
        let running = task
        lock.unlock()
        running?.cancel()
    }
}
