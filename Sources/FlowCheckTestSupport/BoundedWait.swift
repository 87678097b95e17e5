import Dispatch
import Foundation

/// The error a bounded wait throws when its deadline passes first; its description names the
/// helper and what it waited for, so a stuck test fails by name instead of hanging.
///
/// ```swift
/// do {
///     try await gate.wait()
/// } catch let error as WaitTimedOut {
///     print(error)   // Gate 'received': not opened within 10 s
/// }
/// ```
public struct WaitTimedOut: Error, CustomStringConvertible, Equatable, Sendable {
    /// What was waited for, e.g. `Gate 'received': not opened`.
    public let what: String
    /// The real-time bound that passed.
    public let limit: Duration

    /// Creates the error for `what`, which did not happen within `limit`.
    public init(_ what: String, limit: Duration) {
        self.what = what
        self.limit = limit
    }

    /// `"<what> within <limit>"`, e.g. `Gate 'received': not opened within 10 s`.
    public var description: String {
        "\(what) within \(Self.seconds(limit)) s"
    }

    private static func seconds(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        if attoseconds == 0 { return String(seconds) }
        return String(Double(seconds) + Double(attoseconds) / 1e18)
    }
}

/// Suspends until `register`'s resume function is called, the real-time `limit` passes (throws
/// ``WaitTimedOut``) or the calling task is cancelled (throws `CancellationError`), whichever
/// comes first; later calls of the resume function are ignored.
///
/// The deadline runs on a Dispatch timer, not on the cooperative pool, so it fires even while
/// every pool thread is busy; nothing here blocks a thread. `register` runs synchronously,
/// before this function suspends: it hands the resume function to whoever will answer.
///
/// ```swift
/// let value = try await boundedWait("Served 'request': no result", within: .seconds(30)) { resume in
///     box.onResult { resume(.success($0)) }
/// }
/// ```
/// - Parameters:
///   - what: What is waited for, as it should read in a failure: `Gate 'x': not opened`.
///   - limit: The longest real time to wait.
///   - register: Receives the resume function; called exactly once, before suspending.
public func boundedWait<Value: Sendable>(
    _ what: String,
    within limit: Duration,
    _ register: (@escaping @Sendable (Result<Value, any Error>) -> Void) -> Void
) async throws -> Value {
    let once = ResumeOnce<Value>()
    return try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Value, any Error>) in
            once.install(continuation)
            let (seconds, attoseconds) = limit.components
            let nanoseconds = max(0, Double(seconds) * 1e9 + Double(attoseconds) / 1e9)
            DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(Int(min(nanoseconds, 1e15)))) {
                once.resume(.failure(WaitTimedOut(what, limit: limit)))
            }
            register { once.resume($0) }
            if Task.isCancelled {
                once.resume(.failure(CancellationError()))
            }
        }
    } onCancel: {
        once.resume(.failure(CancellationError()))
    }
}

/// A continuation that is resumed at most once, by whichever of answer, deadline or
/// cancellation comes first.
private final class ResumeOnce<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var continuation: CheckedContinuation<Value, any Error>?
    private var early: Result<Value, any Error>?
    private var done = false

    func install(_ continuation: CheckedContinuation<Value, any Error>) {
        lock.lock()
        if let early {
            lock.unlock()
            continuation.resume(with: early)
            return
        }
        self.continuation = continuation
        lock.unlock()
    }

    func resume(_ result: Result<Value, any Error>) {
        lock.lock()
        guard !done else {
            lock.unlock()
            return
        }
        done = true
        guard let continuation else {
            // Cancelled before the continuation existed: hand the result to `install`.
            early = result
            lock.unlock()
            return
        }
        self.continuation = nil
        lock.unlock()
        continuation.resume(with: result)
    }
}
