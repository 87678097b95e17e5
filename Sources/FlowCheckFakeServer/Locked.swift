import Foundation

/// A value guarded by a lock, so shared state can cross threads under strict concurrency.
///
/// The one lock of the harness targets (the fake server, the runner and what builds on them).
/// The SDK keeps its own internal one: it must not depend on the harness that judges it.
///
/// ```swift
/// let count = Locked(0)
/// count.withLock { $0 += 1 }
/// ```
// @unchecked: `value` is only ever touched under `lock` (Synchronization.Mutex needs macOS 15 / iOS 18).
public final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    public init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with exclusive access; keep it short and never call back into the owner.
    public func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
