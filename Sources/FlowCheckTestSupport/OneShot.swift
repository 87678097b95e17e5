import FlowCheckFakeServer

/// A result delivered once, by whichever side comes first (an answer, a deadline, an error),
/// to every task that awaits it; each wait is bounded in real time and holds no thread.
///
/// For handing a result from a thread of its own (a child process's reaper, a socket server)
/// to a test, or for racing an answer against a deadline: the first `fulfil` wins and later
/// ones are ignored.
///
/// ```swift
/// let exit = OneShot<Int32>()
/// process.terminationHandler = { exit.fulfil(.success($0.terminationStatus)) }
/// try process.run()
/// let status = try await exit.value("flowcheck: no exit")   // or throws WaitTimedOut
/// ```
public final class OneShot<Value: Sendable>: Sendable {
    private typealias Resume = @Sendable (Result<Value, any Error>) -> Void

    private struct State {
        var result: Result<Value, any Error>?
        var waiters: [Resume] = []
    }

    private let state = Locked(State())

    /// Creates an empty one.
    public init() {}

    /// Delivers `result` unless one was delivered already, waking every waiter.
    /// - Returns: True when this result is the one delivered.
    @discardableResult
    public func fulfil(_ result: Result<Value, any Error>) -> Bool {
        let waiters = state.withLock { state -> [Resume]? in
            guard state.result == nil else { return nil }
            state.result = result
            defer { state.waiters = [] }
            return state.waiters
        }
        guard let waiters else { return false }
        for resume in waiters { resume(result) }
        return true
    }

    /// Whether a result has been delivered.
    public var isFulfilled: Bool {
        state.withLock { $0.result != nil }
    }

    /// The delivered result's value, suspending until there is one.
    /// - Parameters:
    ///   - what: What did not happen, as a failure should read: `flowcheck serve: no exit`.
    ///   - limit: The longest real time to wait.
    /// - Returns: The delivered value.
    /// - Throws: The delivered error; ``WaitTimedOut`` ("`what` within L s") when `limit`
    ///   passes first; `CancellationError` when the calling task is cancelled first.
    public func value(_ what: String = "OneShot: nothing delivered", within limit: Duration = HangBound.standard) async throws -> Value {
        try await boundedWait(what, within: limit) { resume in
            let delivered = state.withLock { state -> Result<Value, any Error>? in
                if let result = state.result { return result }
                state.waiters.append(resume)
                return nil
            }
            if let delivered {
                resume(delivered)
            }
        }
    }
}
