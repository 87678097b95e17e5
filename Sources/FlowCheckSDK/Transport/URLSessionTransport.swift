import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The production transport: `URLSession` (FoundationNetworking on Linux).
///
/// Uses its own session with an ephemeral configuration (no cookies, no cache, no credential
/// storage shared with the app) and does not follow redirects: a 3xx comes back as a response
/// with its `Location` header, which is how a custom-scheme OAuth redirect is captured. Cancelling
/// the calling task cancels the data task.
public final class URLSessionTransport: HTTPTransport {
    private let session: URLSession
    private let delegate = RedirectRefusingDelegate()
    private let invalidated = Locked(false)
    /// Where every transport creates, resumes and cancels its tasks (see ``send(_:)``): one
    /// serial queue for the process, on Dispatch's overcommitting threads, not the cooperative
    /// pool's. One, not one per transport: a start waits while its session's work queue is busy,
    /// and a queue per transport let hundreds of starts wait at once, each holding a thread,
    /// until Dispatch had none left to run the work queues they waited for (a loaded
    /// `swift test` hung so, with 255 threads in `dataTask` and `resume`).
    private static let starter = DispatchQueue(label: "flowcheck.sdk.urlsession-transport.start")

    /// Creates a transport with its own session.
    /// - Parameter timeout: Seconds before a request or resource load times out.
    public init(timeout: TimeInterval = 30) {
        // A copy of one template: `URLSessionConfiguration.ephemeral` builds a `URLCache` each
        // time it is read (on Linux, most of what a new transport costs), only to drop it here.
        let configuration = Self.template.copy() as? URLSessionConfiguration ?? Self.makeConfiguration()
        configuration.timeoutIntervalForRequest = timeout
        configuration.timeoutIntervalForResource = timeout
        session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
    }

    /// Ephemeral, with no cache, cookies or credential storage. Only read (copied) after it is
    /// built, so sharing it across threads is safe.
    #if canImport(FoundationNetworking)
    private static let template = makeConfiguration()
    #else
    nonisolated(unsafe) private static let template = makeConfiguration()
    #endif

    private static func makeConfiguration() -> URLSessionConfiguration {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.urlCache = nil
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        configuration.httpCookieAcceptPolicy = .never
        configuration.urlCredentialStorage = nil
        return configuration
    }

    deinit {
        invalidate()
    }

    /// Sends `request` without following redirects.
    /// - Parameter request: The request to send.
    /// - Returns: The response for any HTTP status, 3xx included.
    /// - Throws: `OAuthError` `.transport` when no HTTP answer arrived or the transport was
    ///   invalidated; `CancellationError` when the calling task was cancelled.
    public func send(_ request: TransportRequest) async throws -> TransportResponse {
        let urlRequest = Self.urlRequest(for: request)
        let pending = PendingTask()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<TransportResponse, any Error>) in
                // Created and resumed on the transports' queue, never on the caller's thread:
                // FoundationNetworking's `dataTask(with:)` and `resume()` wait (`sync`) on the
                // session's work queue, and a Swift task waiting there holds one of the
                // cooperative pool's threads (one per core) while the queue finishes another
                // request's callbacks; with every pool thread so held, the process idles.
                Self.starter.async { [self] in
                    let started = pending.startUnlessCancelled { () -> URLSessionDataTask? in
                        // A task created on an invalidated session raises an Objective-C exception on
                        // Apple platforms, so refuse before asking the session.
                        guard !invalidated.withLock({ $0 }) else { return nil }
                        // The task's identifier, known once the task exists, read by its completion handler.
                        let box = Locked<Int?>(nil)
                        let delegate = self.delegate
                        let task = session.dataTask(with: urlRequest) { data, response, error in
                            // A refused authentication challenge ends the task as cancelled; its 401
                            // is still the server's answer.
                            if error != nil, response == nil, let id = box.withLock({ $0 }), let challenged = delegate.takeChallengedResponse(for: id) {
                                continuation.resume(with: Self.result(data: Data(), response: challenged, error: nil))
                                return
                            }
                            if let id = box.withLock({ $0 }) { _ = delegate.takeChallengedResponse(for: id) }
                            continuation.resume(with: Self.result(data: data, response: response, error: error))
                        }
                        box.withLock { $0 = task.taskIdentifier }
                        return task
                    }
                    switch started {
                    case .started:
                        break
                    case .cancelled:
                        continuation.resume(throwing: CancellationError())
                    case .refused:
                        continuation.resume(throwing: OAuthError.transport("the transport was invalidated"))
                    }
                }
            }
        } onCancel: {
            // On the same queue, after the start if it was queued first: cancelling a task
            // waits on the session's work queue too, and this runs on the cancelling thread.
            Self.starter.async { pending.cancel() }
        }
    }

    /// Lets running tasks finish, then releases the session; later sends fail with `.transport`.
    /// The harness calls this when a flow ends. Calling it again has no effect. A send made
    /// just before, from another thread, whose task had not been created yet fails too.
    public func invalidate() {
        let first = invalidated.withLock { wasInvalidated -> Bool in
            defer { wasInvalidated = true }
            return !wasInvalidated
        }
        if first {
            session.finishTasksAndInvalidate()
        }
    }

    private static func urlRequest(for request: TransportRequest) -> URLRequest {
        var urlRequest = URLRequest(url: request.url)
        urlRequest.httpMethod = request.method
        for (name, value) in request.headers {
            urlRequest.addValue(value, forHTTPHeaderField: name)
        }
        urlRequest.httpBody = request.body
        return urlRequest
    }

    private static func result(data: Data?, response: URLResponse?, error: (any Error)?) -> Result<TransportResponse, any Error> {
        if let error {
            return .failure(mapError(error))
        }
        guard let http = response as? HTTPURLResponse else {
            return .failure(OAuthError.transport("the server's answer was not an HTTP response"))
        }
        var headers: [String: String] = [:]
        for (name, value) in http.allHeaderFields {
            if let name = name as? String, let value = value as? String {
                headers[name] = value
            }
        }
        return .success(TransportResponse(status: http.statusCode, headers: headers, body: data ?? Data()))
    }
}
