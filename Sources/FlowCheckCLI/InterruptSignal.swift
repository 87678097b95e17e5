import Foundation

/// The first SIGINT or SIGTERM of the process, as a value commands can wait for.
///
/// The executable delivers signals (and exits at once on a second one); a run waits for the
/// first to stop starting flows, and `serve` waits for it to stop serving. Tests deliver one
/// to interrupt a command in process.
public final class InterruptSignal: @unchecked Sendable {
    private let lock = NSLock()
    private var delivered: Int32?
    private var waiters: [UUID: CheckedContinuation<Int32?, Never>] = [:]

    private var handled = false

    public init() {}

    /// Whether the running command stops cleanly on a signal (a run, `serve`). The executable
    /// exits at once on a signal that no command handles.
    public var isHandled: Bool {
        lock.lock()
        defer { lock.unlock() }
        return handled
    }

    /// Says the running command handles signals from now on.
    public func handle() {
        lock.lock()
        handled = true
        lock.unlock()
    }

    /// The signal number that interrupted the process, if one has.
    public var signal: Int32? {
        lock.lock()
        defer { lock.unlock() }
        return delivered
    }

    /// Records `number` (the first one delivered wins) and wakes every waiter.
    public func deliver(_ number: Int32) {
        lock.lock()
        guard delivered == nil else { lock.unlock(); return }
        delivered = number
        let woken = waiters.values
        waiters = [:]
        lock.unlock()
        for waiter in woken { waiter.resume(returning: number) }
    }

    /// Returns the signal once one is delivered, or nil when the waiting task is cancelled.
    public func wait() async -> Int32? {
        let id = UUID()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Int32?, Never>) in
                lock.lock()
                if let delivered {
                    lock.unlock()
                    continuation.resume(returning: delivered)
                } else if Task.isCancelled {
                    lock.unlock()
                    continuation.resume(returning: nil)
                } else {
                    waiters[id] = continuation
                    lock.unlock()
                }
            }
        } onCancel: {
            lock.lock()
            let waiter = waiters.removeValue(forKey: id)
            lock.unlock()
            waiter?.resume(returning: nil)
        }
    }

    /// The exit status a process interrupted by `number` reports: 128 + the signal.
    public static func exitStatus(for number: Int32) -> Int32 {
        128 + number
    }

    /// `SIGINT`, `SIGTERM` or the number, for messages.
    public static func name(of number: Int32) -> String {
        switch number {
        case SIGINT: return "SIGINT"
        case SIGTERM: return "SIGTERM"
        default: return "signal \(number)"
        }
    }
}
