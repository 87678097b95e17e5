import Foundation
import Testing
import FlowCheckServe

/// The serve log's queue never makes its caller wait for the writer: a blocked writer costs
/// dropped (and counted) lines, not a blocked connection.
@Suite(.timeLimit(.minutes(20)))
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

    @Test func writesEveryLineInOrderWhenTheWriterKeepsUp() {
        let sink = Sink(open: true)
        let queue = LogQueue(capacity: 100_000, write: sink.write)
        for number in 0..<5_000 { queue.enqueue("line \(number)") }
        #expect(queue.finish(within: 20))
        #expect(sink.written == (0..<5_000).map { "line \($0)" })
        #expect(queue.dropped == 0)
    }

    @Test func aBlockedWriterCostsDroppedLinesNotABlockedCaller() {
        let sink = Sink(open: false)
        let queue = LogQueue(capacity: 10, write: sink.write)
        // Returns although nothing can be written: 10 lines wait, and the writer may hold a
        // batch of up to 10 more.
        for number in 0..<1_000 { queue.enqueue("line \(number)") }
        #expect(queue.dropped >= 1_000 - 20)
        #expect(!queue.finish(within: 0.2), "finishing gives up on a writer that stays blocked")
        sink.release()
        #expect(queue.finish(within: 20))
        let written = sink.written
        #expect(written.count <= 21)
        #expect(written.last == "flowcheck: \(queue.dropped) log lines dropped (the output was not being read fast enough)")
        #expect(written.dropLast().allSatisfy { $0.hasPrefix("line ") })
    }

    @Test func cutsLongLinesWithAMarker() {
        let line = String(repeating: "x", count: 20_024)
        let cut = LogQueue.cut(line, to: 2_000)
        #expect(cut == String(repeating: "x", count: 2_000) + "… [18024 characters cut]")
        #expect(LogQueue.cut("short", to: 2_000) == "short")
        let sink = Sink(open: true)
        let queue = LogQueue(write: sink.write)
        queue.enqueue(line)
        #expect(queue.finish(within: 20))
        #expect(sink.written == [cut])
    }
}
