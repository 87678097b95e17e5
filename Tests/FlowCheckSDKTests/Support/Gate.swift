import Foundation
import FlowCheckTestSupport

/// A one-shot latch: `wait()` suspends until `open()` has been called (before or after), for at
/// most a real-time bound, so a gate nobody opens fails the test by name instead of hanging it.
///
/// ```swift
/// let received = Gate("received")
/// Task { ...; received.open() }
/// try await received.wait()      // or throws "Gate 'received': not opened within 30 s"
/// ```
final class Gate: @unchecked Sendable {
    /// How a failure names this gate.
    let name: String
    private let lock = NSLock()
    private var isOpen = false
    private var waiters: [@Sendable (Result<Void, any Error>) -> Void] = []

    init(_ name: String) {
        self.name = name
    }

    /// Suspends until the gate is open.
    /// - Parameter limit: The longest real time to wait.
    /// - Throws: ``WaitTimedOut`` naming the gate when `limit` passes first;
    ///   `CancellationError` when the calling task is cancelled first.
    func wait(within limit: Duration = .seconds(30)) async throws {
        try await boundedWait("Gate '\(name)': not opened", within: limit) { resume in
            lock.lock()
            guard !isOpen else {
                lock.unlock()
                resume(.success(()))
                return
            }
            waiters.append(resume)
            lock.unlock()
        }
    }

    /// Opens the gate for every waiter, present and future. Opening twice is harmless.
    func open() {
        lock.lock()
        isOpen = true
        let waiting = waiters
        waiters.removeAll()
        lock.unlock()
        for resume in waiting {
            resume(.success(()))
        }
    }
}
