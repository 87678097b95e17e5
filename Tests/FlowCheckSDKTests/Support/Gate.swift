import Foundation
import Testing
import FlowCheckTestSupport

/// A one-shot latch: `wait()` suspends until `open()` has been called (before or after), for at
/// most a real-time bound, so a gate nobody opens fails the test by name instead of hanging it.
///
/// ```swift
/// let received = Gate("received")
/// Task { ...; received.open() }
/// try await received.wait()      // or throws "Gate 'received': not opened within 300 s"
/// ```
final class Gate: Sendable {
    /// How a failure names this gate.
    let name: String
    private let opened = OneShot<Void>()

    init(_ name: String) {
        self.name = name
    }

    /// Suspends until the gate is open.
    ///
    /// A timeout is also recorded as an issue of the running test, so the gate's name reaches
    /// the report even when the error is caught or wrapped on its way out (a gate awaited inside
    /// a transport comes back from the SDK as a `.transport` error).
    /// - Parameter limit: The longest real time to wait: `HangBound.standard` unless the test
    ///   checks the bound itself.
    /// - Throws: ``WaitTimedOut`` naming the gate when `limit` passes first;
    ///   `CancellationError` when the calling task is cancelled first.
    func wait(within limit: Duration = HangBound.standard, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        do {
            try await opened.value("Gate '\(name)': not opened", within: limit)
        } catch let error as WaitTimedOut {
            Issue.record("\(error)", sourceLocation: sourceLocation)
            throw error
        }
    }

    /// Opens the gate for every waiter, present and future. Opening twice is harmless.
    func open() {
        opened.fulfil(.success(()))
    }
}
