import Foundation
import FlowCheckFakeServer

/// The first SIGINT, SIGTERM or SIGHUP of the process, as a value commands can wait for.
///
/// The executable delivers signals (and exits at once on a second one); a run waits for the
/// first to stop starting flows, and `serve` waits for it to stop serving. Tests deliver one
/// to interrupt a command in process.
public final class InterruptSignal: Sendable {
    private struct State {
        var delivered: Int32?
        var waiters: [UUID: CheckedContinuation<Int32?, Never>] = [:]
        var handled = false
    }

    private let state = Locked(State())

    public init() {}

    /// Whether the running command stops cleanly on a signal (a run, `serve`). The executable
    /// exits at once on a signal that no command handles.
    public var isHandled: Bool {
        state.withLock { $0.handled }
    }

    /// Says the running command handles signals from now on.
    public func handle() {
        state.withLock { $0.handled = true }
    }

    /// The signal number that interrupted the process, if one has.
    public var signal: Int32? {
        state.withLock { $0.delivered }
    }

    /// Records `number` (the first one delivered wins) and wakes every waiter.
    public func deliver(_ number: Int32) {
        let woken = state.withLock { state -> [CheckedContinuation<Int32?, Never>] in
            guard state.delivered == nil else { return [] }
            state.delivered = number
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in woken { waiter.resume(returning: number) }
    }

    /// Returns the signal once one is delivered, or nil when the waiting task is cancelled.
    public func wait() async -> Int32? {
        let id = UUID()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Int32?, Never>) in
                // Answered now (a signal came, or the wait was cancelled), or left waiting.
                let now = state.withLock { state -> (answered: Bool, signal: Int32?) in
                    if let delivered = state.delivered { return (true, delivered) }
                    if Task.isCancelled { return (true, nil) }
                    state.waiters[id] = continuation
                    return (false, nil)
                }
                if now.answered { continuation.resume(returning: now.signal) }
            }
        } onCancel: {
            let waiter = state.withLock { $0.waiters.removeValue(forKey: id) }
            waiter?.resume(returning: nil)
        }
    }

    /// The exit status a process interrupted by `number` reports: 128 + the signal.
    public static func exitStatus(for number: Int32) -> Int32 {
        128 + number
    }

    /// `SIGINT`, `SIGTERM`, `SIGHUP` or the number, for messages.
    public static func name(of number: Int32) -> String {
        switch number {
        case SIGINT: return "SIGINT"
        case SIGTERM: return "SIGTERM"
        case SIGHUP: return "SIGHUP"
        default: return "signal \(number)"
        }
    }
}
