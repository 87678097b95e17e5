import Dispatch
import Foundation

/// The error a deadline-bounded wait throws: it names the wait, so a stuck test says which.
struct DeadlinePassed: Error, CustomStringConvertible {
    var description: String
}

/// A result delivered once, by whichever side comes first, to one awaiting task.
final class OneShot<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var result: Result<Value, any Error>?
    private var waiter: CheckedContinuation<Value, any Error>?

    /// Delivers `result` unless one was delivered already; true if this one won.
    @discardableResult
    func fulfil(_ result: Result<Value, any Error>) -> Bool {
        lock.lock()
        guard self.result == nil else {
            lock.unlock()
            return false
        }
        self.result = result
        let waiter = self.waiter
        self.waiter = nil
        lock.unlock()
        waiter?.resume(with: result)
        return true
    }

    /// The delivered result; suspends (holding no thread) until there is one.
    func value() async throws -> Value {
        try await withCheckedThrowingContinuation { continuation in
            lock.lock()
            if let result {
                lock.unlock()
                continuation.resume(with: result)
            } else {
                waiter = continuation
                lock.unlock()
            }
        }
    }
}

/// Awaits `operation`, or throws ``DeadlinePassed`` naming `what` once `seconds` of real time
/// have passed. The timer runs on Dispatch, not the cooperative pool, so it fires even when
/// the pool is busy; an operation that is still running then is cancelled and left behind.
func withDeadline<Value: Sendable>(_ seconds: Double, _ what: String, _ operation: @escaping @Sendable () async throws -> Value) async throws -> Value {
    let outcome = OneShot<Value>()
    let work = Task {
        do {
            outcome.fulfil(.success(try await operation()))
        } catch {
            outcome.fulfil(.failure(error))
        }
    }
    DispatchQueue.global().asyncAfter(deadline: .now() + seconds) {
        if outcome.fulfil(.failure(DeadlinePassed(description: "\(what): no answer within \(seconds) s"))) {
            work.cancel()
        }
    }
    return try await outcome.value()
}
