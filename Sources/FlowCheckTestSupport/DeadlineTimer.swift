import Foundation

/// One thread of its own that runs actions at their real-time deadlines: the timers of
/// ``boundedWait(_:within:_:)`` and everything built on it.
///
/// Not a Dispatch timer: on Linux `DispatchQueue.global()` and private queues run their work
/// on the same worker threads as Swift's cooperative pool, so a timer there does not fire
/// while tests block the pool, which is exactly when a deadline matters. Actions run on this
/// thread and must only hand over (resume a continuation), never block.
///
/// Deadlines are kept in a min-heap; a cancelled one stays in the heap, without its action,
/// until its time comes, so scheduling and cancelling cost O(log n) and O(1) under the lock
/// that callers on the pool take.
// @unchecked: its heap and actions are guarded by `condition`, an NSCondition its thread waits on (Locked cannot wait).
final class DeadlineTimer: @unchecked Sendable {
    static let shared = DeadlineTimer()

    /// The timer's thread, the only one its actions run on; set once, in `init`.
    private(set) var thread: Thread?

    /// A scheduled action, for ``cancel(_:)``.
    struct Token: Sendable {
        fileprivate let id: UInt64
    }

    /// The longest delay kept as given; longer ones (a bound of years) fire at this.
    private static let longest: Duration = .seconds(10 * 365 * 24 * 3600)

    private let condition = NSCondition()
    /// Actions not yet run or cancelled, by id.
    private var actions: [UInt64: @Sendable () -> Void] = [:]
    /// Every deadline not yet reached, cancelled ones included: a binary min-heap.
    private var heap: [(deadline: ContinuousClock.Instant, id: UInt64)] = []
    private var nextID: UInt64 = 0

    private init() {
        let thread = Thread { [self] in
            OwnThreads.nameCurrentThread("DeadlineTimer")
            run()
        }
        thread.stackSize = 256 * 1024
        self.thread = thread
        thread.start()
    }

    /// Runs `action` on the timer's thread once `delay` of real time has passed, unless
    /// cancelled first.
    func schedule(after delay: Duration, _ action: @escaping @Sendable () -> Void) -> Token {
        schedule(at: ContinuousClock.now + min(max(delay, .zero), Self.longest), action)
    }

    /// Runs `action` on the timer's thread at `deadline`.
    func schedule(at deadline: ContinuousClock.Instant, _ action: @escaping @Sendable () -> Void) -> Token {
        condition.lock()
        defer { condition.unlock() }
        nextID += 1
        let id = nextID
        actions[id] = action
        push((deadline, id))
        // Only a new earliest deadline changes how long the thread sleeps.
        if heap[0].id == id { condition.signal() }
        return Token(id: id)
    }

    /// Drops a scheduled action that has not run yet; harmless after it ran.
    func cancel(_ token: Token) {
        condition.lock()
        actions[token.id] = nil
        condition.unlock()
    }

    private func run() {
        condition.lock()
        while true {
            guard let next = heap.first else {
                condition.wait()
                continue
            }
            let now = ContinuousClock.now
            guard next.deadline <= now else {
                let left = now.duration(to: next.deadline).components
                _ = condition.wait(until: Date(timeIntervalSinceNow: Double(left.seconds) + Double(left.attoseconds) / 1e18))
                continue
            }
            popFirst()
            guard let action = actions.removeValue(forKey: next.id) else { continue }
            condition.unlock()
            action()
            condition.lock()
        }
    }

    // MARK: - The heap (caller holds the lock)

    private func push(_ entry: (deadline: ContinuousClock.Instant, id: UInt64)) {
        heap.append(entry)
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].deadline < heap[parent].deadline else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    private func popFirst() {
        let last = heap.removeLast()
        guard !heap.isEmpty else { return }
        heap[0] = last
        var parent = 0
        while true {
            let left = 2 * parent + 1, right = left + 1
            var smallest = parent
            if left < heap.count, heap[left].deadline < heap[smallest].deadline { smallest = left }
            if right < heap.count, heap[right].deadline < heap[smallest].deadline { smallest = right }
            guard smallest != parent else { return }
            heap.swapAt(parent, smallest)
            parent = smallest
        }
    }
}
