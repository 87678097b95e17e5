import Foundation
import FlowCheckTestSupport
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads a child's stdout until a text appears, then stops reading (the pipe fills and the
/// child's writes block) until told to go on, then reads to the end: a reader gone quiet.
///
/// Reading happens on a thread of its own; the waits for what was read are async and run
/// their condition waits off the cooperative pool too.
final class PausedReader: @unchecked Sendable {
    private let condition = NSCondition()
    private var text = ""
    private var resumed = false
    private var ended = false

    /// Starts reading `fd` on a thread of its own until `pauseAfter` has been read.
    init(fd: Int32, pauseAfter: String) {
        let thread = Thread { [self] in
            var buffer = [UInt8](repeating: 0, count: 4096)
            var paused = false
            while true {
                if !paused {
                    condition.lock()
                    if text.contains(pauseAfter) {
                        paused = true
                        condition.broadcast()
                        while !resumed { condition.wait() }
                    }
                    condition.unlock()
                }
                let count = read(fd, &buffer, buffer.count)
                condition.lock()
                if count <= 0 {
                    ended = true
                    condition.broadcast()
                    condition.unlock()
                    return
                }
                text += String(decoding: buffer[0..<count], as: UTF8.self)
                condition.broadcast()
                condition.unlock()
            }
        }
        thread.name = "PausedReader"
        thread.start()
    }

    /// Waits until `needle` has been read or the stream ended, at most `limit`; what was read,
    /// or nil when the stream ended (or `limit` passed) without it.
    func wait(for needle: String, within limit: Duration = HangBound.standard) async throws -> String? {
        try await offThePool("PausedReader.wait(for: \"\(needle)\")", within: limit + .seconds(30)) { [self] in
            blockingWait(for: needle, within: limit)
        }
    }

    private func blockingWait(for needle: String, within limit: Duration) -> String? {
        let deadline = Self.date(after: limit)
        condition.lock()
        defer { condition.unlock() }
        while !text.contains(needle) {
            if ended { return nil }
            guard condition.wait(until: deadline) else { return nil }
        }
        return text
    }

    /// Reads on to the end of the stream.
    func resume() {
        condition.lock()
        resumed = true
        condition.broadcast()
        condition.unlock()
    }

    /// Everything read once the stream has ended, or nil if it had not within `limit`.
    func all(within limit: Duration = HangBound.standard) async throws -> String? {
        try await offThePool("PausedReader.all", within: limit + .seconds(30)) { [self] in
            blockingAll(within: limit)
        }
    }

    private func blockingAll(within limit: Duration) -> String? {
        let deadline = Self.date(after: limit)
        condition.lock()
        defer { condition.unlock() }
        while !ended {
            guard condition.wait(until: deadline) else { return nil }
        }
        return text
    }

    private static func date(after duration: Duration) -> Date {
        let (seconds, attoseconds) = duration.components
        return Date(timeIntervalSinceNow: Double(seconds) + Double(attoseconds) / 1e18)
    }
}
