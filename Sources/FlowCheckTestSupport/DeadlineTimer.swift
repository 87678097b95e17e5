import Foundation

/// One thread of its own that runs actions at their real-time deadlines: the timers of
/// ``boundedWait(_:within:_:)`` and everything built on it.
///
/// Not a Dispatch timer: on Linux `DispatchQueue.global()` and private queues run their work
/// on the same worker threads as Swift's cooperative pool, so a timer there does not fire
/// while tests block the pool, which is exactly when a deadline matters. Actions run on this
/// thread and must only hand over (resume a continuation), never block.
final class DeadlineTimer: @unchecked Sendable {
    static let shared = DeadlineTimer()

    /// A scheduled action, for ``cancel(_:)``.
    struct Token: Sendable {
        fileprivate let id: UInt64
    }

    /// The longest delay kept as given; longer ones (a bound of years) fire at this.
    private static let longest: Duration = .seconds(10 * 365 * 24 * 3600)

    private let condition = NSCondition()
    private var pending: [UInt64: (deadline: ContinuousClock.Instant, action: @Sendable () -> Void)] = [:]
    private var nextID: UInt64 = 0

    private init() {
        let thread = Thread { [self] in run() }
        thread.name = "FlowCheckTestSupport.DeadlineTimer"
        thread.stackSize = 256 * 1024
        thread.start()
    }

    /// Runs `action` on the timer's thread once `delay` of real time has passed, unless
    /// cancelled first.
    func schedule(after delay: Duration, _ action: @escaping @Sendable () -> Void) -> Token {
        let deadline = ContinuousClock.now + min(max(delay, .zero), Self.longest)
        condition.lock()
        nextID += 1
        let id = nextID
        pending[id] = (deadline, action)
        condition.signal()
        condition.unlock()
        return Token(id: id)
    }

    /// Drops a scheduled action that has not run yet; harmless after it ran.
    func cancel(_ token: Token) {
        condition.lock()
        pending[token.id] = nil
        condition.unlock()
    }

    private func run() {
        condition.lock()
        while true {
            let now = ContinuousClock.now
            let due = pending.filter { $0.value.deadline <= now }
            if !due.isEmpty {
                for id in due.keys { pending[id] = nil }
                condition.unlock()
                for entry in due.values.sorted(by: { $0.deadline < $1.deadline }) { entry.action() }
                condition.lock()
                continue
            }
            guard let next = pending.values.map(\.deadline).min() else {
                condition.wait()
                continue
            }
            let left = now.duration(to: next).components
            _ = condition.wait(until: Date(timeIntervalSinceNow: Double(left.seconds) + Double(left.attoseconds) / 1e18))
        }
    }
}
