import Foundation
import FlowCheckTestLanes
import Testing
import FlowCheckServe
import FlowCheckFakeServer
import FlowCheckTestSupport

/// The serve log's queue never makes its caller wait for the writer: a blocked writer costs
/// dropped (and counted) lines, not a blocked connection. `finish(within:)` waits for the
/// writer thread, so the tests call it off the pool (``finish(_:within:)``).
@Suite(.fast, .timeLimit(.minutes(20)))
struct LogQueueTests {
    final class Sink: @unchecked Sendable {
        private let condition = NSCondition()
        private var lines: [String] = []
        private var open: Bool
        init(open: Bool) { self.open = open }

        /// Writes, or blocks until `release()`.
        func write(_ line: String) {
            condition.lock()
            while !open { condition.wait() }
            lines.append(line)
            condition.broadcast()
            condition.unlock()
        }

        func release() {
            condition.lock()
            open = true
            condition.broadcast()
            condition.unlock()
        }

        var written: [String] {
            condition.lock()
            defer { condition.unlock() }
            return lines
        }
    }

    /// `queue.finish(within:)` on a thread of its own: it waits for the writer thread.
    private func finish(_ queue: LogQueue, within seconds: TimeInterval = HangBound.seconds) async throws -> Bool {
        try await offThePool("LogQueue.finish(within: \(seconds))") { queue.finish(within: seconds) }
    }

    @Test func writesEveryLineInOrderWhenTheWriterKeepsUp() async throws {
        let sink = Sink(open: true)
        let queue = LogQueue(capacity: 100_000, write: sink.write)
        for number in 0..<5_000 { queue.enqueue("line \(number)") }
        #expect(try await finish(queue))
        #expect(sink.written == (0..<5_000).map { "line \($0)" })
        #expect(queue.dropped == 0)
    }

    @Test func aBlockedWriterCostsDroppedLinesNotABlockedCaller() async throws {
        let sink = Sink(open: false)
        let queue = LogQueue(capacity: 10, write: sink.write)
        // Returns although nothing can be written: 10 lines wait, and the writer may hold a
        // batch of up to 10 more.
        for number in 0..<1_000 { queue.enqueue("line \(number)") }
        #expect(queue.dropped >= 1_000 - 20)
        #expect(try await !finish(queue, within: 0.2), "finishing gives up on a writer that stays blocked")
        sink.release()
        #expect(try await finish(queue))
        // However the writer's thread was scheduled (it may take a batch while the loop is still
        // filling the queue, and so report the drops in two counts), at most 20 lines get
        // through, the drop counts add up to every dropped line, and a count comes last.
        let written = sink.written
        let summary = /^flowcheck: (\d+) log lines? dropped \(the output was not being read fast enough\)$/
        let counts = written.compactMap { line in line.wholeMatch(of: summary).map { Int($0.1)! } }
        let lines = written.filter { $0.wholeMatch(of: summary) == nil }
        #expect(lines.count <= 20)
        #expect(lines.allSatisfy { $0.hasPrefix("line ") })
        #expect(counts.reduce(0, +) == queue.dropped, "\(counts) against \(queue.dropped) dropped")
        #expect(written.last?.wholeMatch(of: summary) != nil, "\(written.last ?? "")")
    }

    @Test func cutsLongLinesWithAMarker() async throws {
        let line = String(repeating: "x", count: 20_024)
        let cut = LogQueue.cut(line, to: 2_000)
        #expect(cut == String(repeating: "x", count: 2_000) + "… [18024 characters cut]")
        #expect(LogQueue.cut("short", to: 2_000) == "short")
        let sink = Sink(open: true)
        let queue = LogQueue(write: sink.write)
        queue.enqueue(line)
        #expect(try await finish(queue))
        #expect(sink.written == [cut])
    }

    @Test func aBatchWriterGetsEveryLineInOrder() async throws {
        let batches = Locked<[[String]]>([])
        let queue = LogQueue(capacity: 100_000, writeLines: { lines in batches.withLock { $0.append(lines) } })
        for number in 0..<5_000 { queue.enqueue("line \(number)") }
        #expect(try await finish(queue))
        let written = batches.withLock { $0 }
        #expect(written.joined().elementsEqual((0..<5_000).map { "line \($0)" }))
        #expect(written.allSatisfy { !$0.isEmpty })
    }
}
