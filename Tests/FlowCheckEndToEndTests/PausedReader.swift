import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads a child's stdout until a text appears, then stops reading (the pipe fills and the
/// child's writes block) until told to go on, then reads to the end: a reader gone quiet.
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

    /// Waits until `needle` has been read or the stream ended, at most `seconds`; what was read.
    func wait(for needle: String, within seconds: Double) -> String? {
        let deadline = Date(timeIntervalSinceNow: seconds)
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

    /// Everything read once the stream has ended, or nil if it had not within `seconds`.
    func all(within seconds: Double) -> String? {
        let deadline = Date(timeIntervalSinceNow: seconds)
        condition.lock()
        defer { condition.unlock() }
        while !ended {
            guard condition.wait(until: deadline) else { return nil }
        }
        return text
    }
}
