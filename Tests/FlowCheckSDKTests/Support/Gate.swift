import Foundation
import Testing
import FlowCheckTestSupport

/// A one-shot latch: `wait()` suspends until `open()` has been called (before or after), for at
/// most a real-time bound, so a gate nobody opens fails the test by name instead of hanging it.
///
/// ```swift
/// let received = Gate("received")
/// Task { ...; received.open() }
/// try await received.wait()      // or throws "Gate 'received': not opened within 120 s"
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
    ///
    /// A timeout is also recorded as an issue of the running test, so the gate's name reaches
    /// the report even when the error is caught or wrapped on its way out (a gate awaited inside
    /// a transport comes back from the SDK as a `.transport` error).
    /// - Parameter limit: The longest real time to wait.
    /// - Throws: ``WaitTimedOut`` naming the gate when `limit` passes first;
    ///   `CancellationError` when the calling task is cancelled first.
    func wait(within limit: Duration = .seconds(120), sourceLocation: SourceLocation = #_sourceLocation) async throws {
        do {
            try await waitUnrecorded(within: limit)
        } catch let error as WaitTimedOut {
            Issue.record("\(error)", sourceLocation: sourceLocation)
            throw error
        }
    }

    private func waitUnrecorded(within limit: Duration) async throws {
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
