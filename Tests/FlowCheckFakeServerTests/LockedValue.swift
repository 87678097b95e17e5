import Foundation

/// A lock-guarded value, so observers called on server threads can report to a test.
///
/// Usage: `let seen = LockedValue<[Int]>([])`, then `seen.withLock { $0.append(1) }`.
final class LockedValue<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    func withLock<Result>(_ body: (inout Value) -> Result) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return body(&value)
    }
}
