import FlowCheckFakeServer
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
/// The deadline runs on a thread of its own (not on the cooperative pool, and not on Dispatch,
/// whose Linux workers are the pool's threads), so it fires even while every pool thread is
/// blocked; nothing here blocks a thread. `register` runs synchronously, before this function
/// suspends: it hands the resume function to whoever will answer.
///
/// ```swift
/// let value = try await boundedWait("Served 'request': no result", within: HangBound.standard) { resume in
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
    // Before the continuation exists: a deadline that passes first is kept for `install`.
    let timer = DeadlineTimer.shared.schedule(after: limit) {
        once.resume(.failure(WaitTimedOut(what, limit: limit)))
    }
    defer { DeadlineTimer.shared.cancel(timer) }
    return try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Value, any Error>) in
            once.install(continuation)
            register { once.resume($0) }
            if Task.isCancelled {
                once.resume(.failure(CancellationError()))
            }
        }
    } onCancel: {
        once.resume(.failure(CancellationError()))
    }
}

/// The value of `task`, awaited for at most the real-time `limit`: what `await task.value`
/// should be in a test.
///
/// `await task.value` on an unstructured `Task` ignores the awaiting task's cancellation, so a
/// Swift Testing `.timeLimit` (which cancels the test, then waits for its body to return) cannot
/// end it: a task that never finishes hangs `swift test`. This wait ends in every case:
///
/// - `task` finishes first: its value, or its error rethrown unchanged (`CancellationError`
///   included, so `#expect(throws: CancellationError.self)` still checks the task);
/// - `limit` passes first: `task` is cancelled and ``WaitTimedOut`` is thrown, reading
///   `Task '<what>': not finished within <limit> s`;
/// - the calling task is cancelled first (a time limit): `task` is cancelled too, as a child
///   would be, and `CancellationError` is thrown.
///
/// A `task` that ignores its cancellation is left behind, with the one small task that awaits it
/// on the helper's behalf; both stay suspended and hold no thread.
///
/// ```swift
/// let request = Task { try await transport.send(request) }
/// clock.advance(by: 31)
/// let error = await #expect(throws: OAuthError.self) {
///     try await boundedValue(of: request, waitingFor: "the request past its deadline")
/// }
/// ```
/// - Parameters:
///   - task: The task whose value is wanted.
///   - limit: The longest real time to wait; ``HangBound/standard`` unless the test checks
///     the bound itself.
///   - what: What the task is, as it should read in a failure: `the stalled products request`.
/// - Throws: `task`'s own error; ``WaitTimedOut`` naming `what`; `CancellationError`.
public func boundedValue<Success: Sendable, Failure: Error>(
    of task: Task<Success, Failure>,
    within limit: Duration = HangBound.standard,
    waitingFor what: String
) async throws -> Success {
    do {
        return try await boundedWait("Task '\(what)': not finished", within: limit) { resume in
            // `task.result` cannot be cancelled; awaiting it here, not in the caller, keeps the
            // caller free to leave at its deadline or cancellation.
            Task {
                resume(await task.result.mapError { $0 })
            }
        }
    } catch {
        // Harmless when `task` finished (its own error came back); otherwise the wait was cut
        // short and nothing is left to receive the task's value.
        task.cancel()
        throw error
    }
}

/// A continuation that is resumed at most once, by whichever of answer, deadline or
/// cancellation comes first.
private final class ResumeOnce<Value: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<Value, any Error>?
        var early: Result<Value, any Error>?
        var done = false
    }

    private let state = Locked(State())

    func install(_ continuation: CheckedContinuation<Value, any Error>) {
        let early = state.withLock { state -> Result<Value, any Error>? in
            if let early = state.early { return early }
            state.continuation = continuation
            return nil
        }
        if let early {
            continuation.resume(with: early)
        }
    }

    func resume(_ result: Result<Value, any Error>) {
        let continuation = state.withLock { state -> CheckedContinuation<Value, any Error>? in
            guard !state.done else { return nil }
            state.done = true
            guard let continuation = state.continuation else {
                // Cancelled before the continuation existed: hand the result to `install`.
                state.early = result
                return nil
            }
            state.continuation = nil
            return continuation
        }
        continuation?.resume(with: result)
    }
}
