import Foundation

/// A value guarded by a lock, so shared state can cross threads under strict concurrency.
///
/// Internal on purpose: a public `Locked` would clash with same-named helpers in modules
/// that import this one.
final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with exclusive access; keep it short and never call back into the owner.
    func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
