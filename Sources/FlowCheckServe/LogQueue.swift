import Foundation

/// Log lines handed to a writer on a thread of their own, through a bounded queue: a caller
/// (the thread serving a connection in `flowcheck serve`) never waits for the writer. When the queue is
/// full, because the writer is blocked (nobody reads stdout) or slower than the traffic, the
/// line is dropped and counted; the count is written, as one line, before the next line the
/// writer gets to write.
// @unchecked: its state is guarded by `condition`, an NSCondition the writer thread waits on (Locked cannot wait).
public final class LogQueue: @unchecked Sendable {
    /// Longest line written, in characters; a longer one is cut and marked.
    public static let defaultMaxLineLength = 2_000

    private let condition = NSCondition()
    private var lines: [String] = []
    private var droppedSinceWritten = 0
    private var droppedTotal = 0
    private var finished = false
    private var writing = false
    /// The writer waits on the condition for a first line: only then does a new line need to
    /// wake it (a wake-up per line was a futex call per request in `serve`).
    private var sleeping = false
    /// The writer has just written and waits ``nap`` for more before it sleeps: lines that come
    /// meanwhile wake it only once they fill a quarter of the queue, so under steady traffic it
    /// wakes about every nap, not for every few lines (a futex wake per request was the largest
    /// share of serve's kernel time under the event loop).
    private var napping = false
    /// How long the writer waits for more lines after writing; a line waits this long at most.
    static let nap: TimeInterval = 0.005
    /// Wakes a napping writer early. Its wait is on the monotonic clock (a condition's is on
    /// the wall clock, which a clock step could stretch to hours).
    private let napWake = DispatchSemaphore(value: 0)
    /// Set once a napping writer has been woken (one signal a nap).
    private var napWoken = false
    private let capacity: Int
    private let maxLineLength: Int
    private let write: @Sendable ([String]) -> Void

    /// - Parameters:
    ///   - capacity: most lines waiting to be written.
    ///   - maxLineLength: longest line, in characters, before it is cut with a marker.
    ///   - write: writes one line; may block for as long as it likes.
    public convenience init(capacity: Int = 1_000, maxLineLength: Int = LogQueue.defaultMaxLineLength, write: @escaping @Sendable (String) -> Void) {
        self.init(capacity: capacity, maxLineLength: maxLineLength, writeLines: { lines in lines.forEach(write) })
    }

    /// As ``init(capacity:maxLineLength:write:)``, with a writer given every line the queue
    /// holds at once, in order (`serve` writes them in one system call, not one a line).
    public init(capacity: Int = 1_000, maxLineLength: Int = LogQueue.defaultMaxLineLength, writeLines: @escaping @Sendable ([String]) -> Void) {
        self.capacity = max(capacity, 1)
        self.maxLineLength = max(maxLineLength, 1)
        self.write = writeLines
        let thread = Thread { [self] in run() }
        thread.name = "FlowCheck.log"
        thread.start()
    }

    /// Queues `line`, cut to the maximum length, or drops and counts it when the queue is full
    /// or finished. Never blocks on the writer.
    public func enqueue(_ line: String) {
        let cut = Self.cut(line, to: maxLineLength)
        condition.lock()
        defer { condition.unlock() }
        guard !finished, lines.count < capacity else {
            droppedSinceWritten += 1
            droppedTotal += 1
            return
        }
        lines.append(cut)
        if sleeping {
            condition.signal()
        } else if napping, !napWoken, lines.count >= capacity / 4 {
            napWoken = true
            napWake.signal()
        }
    }

    /// Lines dropped so far.
    public var dropped: Int {
        condition.lock()
        defer { condition.unlock() }
        return droppedTotal
    }

    /// Stops taking lines and waits until everything queued is written or `deadline` passes
    /// (the writer may be blocked for good); true when everything was written.
    @discardableResult
    public func finish(within seconds: TimeInterval) -> Bool {
        let deadline = Date(timeIntervalSinceNow: seconds)
        condition.lock()
        defer { condition.unlock() }
        finished = true
        condition.broadcast()
        if napping, !napWoken {
            napWoken = true
            napWake.signal()
        }
        while !lines.isEmpty || writing || droppedSinceWritten > 0 {
            guard condition.wait(until: deadline) else { return false }
        }
        return true
    }

    /// `line` cut to `length` characters, with a marker saying how many were cut.
    public static func cut(_ line: String, to length: Int) -> String {
        guard line.count > length else { return line }
        return "\(line.prefix(length))… [\(line.count - length) characters cut]"
    }

    private func run() {
        var wroteLast = false
        while true {
            condition.lock()
            if wroteLast, !finished, lines.count < capacity / 4, droppedSinceWritten == 0 {
                // Gather what comes in the next moment into one write.
                napping = true
                napWoken = false
                condition.unlock()
                _ = napWake.wait(timeout: .now() + Self.nap)
                condition.lock()
                napping = false
                // A wake-up that came as the nap ran out is taken now, not by the next nap.
                if napWoken { _ = napWake.wait(timeout: .now()) }
            }
            while lines.isEmpty && droppedSinceWritten == 0 && !finished {
                // Woken from here by a first line, the writer writes it at once.
                wroteLast = false
                sleeping = true
                condition.wait()
                sleeping = false
            }
            if lines.isEmpty && droppedSinceWritten == 0 && finished {
                condition.unlock()
                return
            }
            // Lines are dropped only while the queue is full, so every queued line came
            // before the drops it reports.
            var batch = lines
            lines.removeAll(keepingCapacity: true)
            if droppedSinceWritten > 0 {
                batch.append("flowcheck: \(droppedSinceWritten) log line\(droppedSinceWritten == 1 ? "" : "s") dropped (the output was not being read fast enough)")
                droppedSinceWritten = 0
            }
            writing = true
            wroteLast = true
            condition.unlock()
            write(batch)
            condition.lock()
            writing = false
            condition.broadcast()
            condition.unlock()
        }
    }
}
