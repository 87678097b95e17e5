import Foundation

/// A value guarded by a lock, for the few reference types that must be `Sendable` without being
/// actors (stores and transports are called synchronously or from URLSession's own queue).
///
/// `Synchronization.Mutex` would be the natural choice but needs macOS 15 / iOS 18, above the
/// package's deployment targets.
// @unchecked: `value` is only ever touched under `lock`, which the compiler cannot see.
final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with exclusive access to the value.
    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
