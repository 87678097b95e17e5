import Foundation
import FlowCheckTestLanes
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `flowcheck serve` under the conditions of a long run: nobody reading its stdout, and more
/// connections than it may serve. It keeps answering, and Ctrl-C still stops it.
@Suite(.integration, .timeLimit(.minutes(20)))
struct ServeLongRunBinaryTests {
    /// A launched `flowcheck serve` whose stdout the test reads only as far as it chooses.
    final class Serve: @unchecked Sendable {
        let process = Process()
        /// Kept: its read end closes when the pipe is released.
        private let pipe = Pipe()
        let stdout: PausedReader
        private let exited = DispatchSemaphore(value: 0)

        /// - Parameter descriptorLimit: a lower `ulimit -n` for serve (through /bin/sh).
        init(_ arguments: [String], descriptorLimit: Int? = nil) throws {
            let binary = try FlowCheckBinaryTests.binary()
            var command = [binary.path, "serve"] + arguments
            if let descriptorLimit {
                command = ["/bin/sh", "-c", "ulimit -n \(descriptorLimit) && exec \"$0\" \"$@\""] + command
            }
            // As ChildProcess does: the server dies with the test process.
            if let setpriv = ["/usr/bin/setpriv", "/bin/setpriv"].first(where: FileManager.default.isExecutableFile(atPath:)) {
                process.executableURL = URL(fileURLWithPath: setpriv)
                process.arguments = ["--pdeathsig", "KILL", "--"] + command
            } else {
                process.executableURL = URL(fileURLWithPath: command[0])
                process.arguments = Array(command.dropFirst())
            }
            process.standardOutput = pipe
            process.standardError = FileHandle.nullDevice
            process.standardInput = FileHandle.nullDevice
            process.terminationHandler = { [exited] _ in exited.signal() }
            stdout = PausedReader(fd: pipe.fileHandleForReading.fileDescriptor, pauseAfter: "Ctrl-C stops.")
            try process.run()
        }

        /// The port of the provider whose ready line starts with `name`.
        func port(of name: String, within seconds: Double) throws -> Int {
            let text = try #require(stdout.wait(for: "Ctrl-C stops.", within: seconds), "flowcheck serve: no ready line within \(seconds) s")
            let line = try #require(text.split(separator: "\n").first { $0.hasPrefix(name) })
            return try #require(URL(string: String(line.split(separator: " ").last ?? ""))?.port)
        }

        /// SIGINT, then the exit status, or nil if it had not exited within `seconds`.
        func interrupt(exitWithin seconds: Double) -> Int32? {
            kill(process.processIdentifier, SIGINT)
            guard exited.wait(timeout: .now() + seconds) == .success else { return nil }
            return process.terminationStatus
        }

        deinit {
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        }
    }

    /// A blocking loopback connection whose every read and write is bounded by a timeout.
    final class Connection {
        let fd: Int32
        private var pending: [UInt8] = []

        init?(port: Int, timeout: Int = 20) {
            #if os(Linux)
            fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            #else
            fd = socket(AF_INET, SOCK_STREAM, 0)
            #endif
            var limit = timeval(tv_sec: timeout, tv_usec: 0)
            _ = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
            _ = setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            address.sin_addr = in_addr(s_addr: UInt32(0x7F00_0001).bigEndian)
            let connected = withUnsafePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard fd >= 0, connected == 0 else { return nil }
        }

        deinit { close(fd) }

        func send(_ text: String) -> Bool {
            let bytes = Array(text.utf8)
            var sent = 0
            while sent < bytes.count {
                let count = bytes[sent...].withUnsafeBytes { Self.write(fd, $0) }
                guard count > 0 else { return false }
                sent += count
            }
            return true
        }

        private static func write(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Int {
            #if os(Linux)
            Glibc.send(fd, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL))
            #else
            Darwin.send(fd, bytes.baseAddress, bytes.count, 0)
            #endif
        }

        /// The status of the next response (its body skipped by Content-Length); nil when the
        /// stream ended or a read timed out first.
        func readStatus() -> Int? {
            var buffer = [UInt8](repeating: 0, count: 16 * 1024)
            let separator = Array("\r\n\r\n".utf8)
            while true {
                if let end = Self.find(separator, in: pending) {
                    let head = String(decoding: pending[0..<end], as: UTF8.self)
                    let length = head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
                        .flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) } ?? 0
                    if pending.count >= end + 4 + length {
                        pending.removeFirst(end + 4 + length)
                        return head.split(separator: " ").dropFirst().first.flatMap { Int($0) }
                    }
                }
                let count = recv(fd, &buffer, buffer.count, 0)
                guard count > 0 else { return nil }
                pending += buffer[0..<count]
            }
        }

        /// Whether the server closed (or reset) the connection; false if a read timed out.
        func closedByServer() -> Bool {
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = recv(fd, &buffer, buffer.count, 0)
                if count == 0 { return true }
                if count < 0 { return errno == ECONNRESET }
            }
        }

        private static func find(_ needle: [UInt8], in bytes: [UInt8]) -> Int? {
            guard bytes.count >= needle.count else { return nil }
            for start in 0...(bytes.count - needle.count) where bytes[start..<(start + needle.count)].elementsEqual(needle) { return start }
            return nil
        }
    }

    @Test func answersEveryRequestWhileNobodyReadsItsStdout() throws {
        let serve = try Serve([])
        let port = try serve.port(of: "moltin", within: 60)
        // The reader has stopped: about 4,000 log lines (well over a pipe's 64 KiB) find
        // nobody reading them, and every request is still answered.
        let connection = try #require(Connection(port: port))
        var answered = 0
        for _ in 0..<4_000 {
            guard connection.send("GET /v1/products HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"), connection.readStatus() != nil else { break }
            answered += 1
        }
        #expect(answered == 4_000, "every request answered with stdout unread")
        serve.stdout.resume()
        // The count comes after the lines queued before the drops: once it is read, nothing
        // is left for serve's 1 s drain at Ctrl-C but "Stopped." (on a loaded machine the
        // backlog alone could take longer).
        #expect(serve.stdout.wait(for: "log lines dropped", within: 30) != nil, "the dropped lines are counted and reported")
        #expect(serve.interrupt(exitWithin: 10) == 0, "Ctrl-C stops serve, exit status 0")
        let text = try #require(serve.stdout.all(within: 30), "stdout ends once serve has exited")
        #expect(text.contains("Stopped."))
    }

    @Test func shedsConnectionsBeyondItsCapAndStillStopsOnInterrupt() throws {
        let serve = try Serve(["--max-connections", "4"])
        let port = try serve.port(of: "moltin", within: 60)
        serve.stdout.resume()
        // Four served (each answered once, so each is registered), ten more shed.
        var kept: [Connection] = []
        for _ in 0..<4 {
            let connection = try #require(Connection(port: port))
            #expect(connection.send("GET /v1/products HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"))
            let status = connection.readStatus()
            #expect(status != nil && status != 503, "within the cap: served")
            kept.append(connection)
        }
        for _ in 0..<10 {
            let extra = try #require(Connection(port: port))
            #expect(extra.readStatus() == 503, "beyond the cap: 503")
            #expect(extra.closedByServer(), "and closed")
        }
        #expect(serve.interrupt(exitWithin: 10) == 0, "Ctrl-C stops serve at its cap, exit status 0")
        for connection in kept { #expect(connection.closedByServer(), "served connections are closed at stop") }
    }

    @Test func recoversFromItsDescriptorLimitAndStillStopsOnInterrupt() throws {
        // 40 descriptors: the process's own, five listeners, and room for a few dozen
        // connections, far fewer than the cap, so accept() itself runs out (EMFILE).
        let serve = try Serve([], descriptorLimit: 40)
        let port = try serve.port(of: "moltin", within: 60)
        serve.stdout.resume()
        var idle: [Connection] = []
        for _ in 0..<80 {
            // Connects complete in the kernel's backlog even when serve cannot accept them.
            guard let connection = Connection(port: port, timeout: 5) else { break }
            idle.append(connection)
        }
        #expect(idle.count > 40, "more connections than serve has descriptors for")
        idle.removeAll()
        // Every descriptor comes back: once the idle ones are gone, a client is served again.
        var served = false
        let deadline = ContinuousClock.now + .seconds(30)
        while !served, ContinuousClock.now < deadline {
            guard let client = Connection(port: port, timeout: 5), client.send("GET /v1/products HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n") else { continue }
            served = client.readStatus().map { $0 != 503 } ?? false
        }
        #expect(served, "served again after its descriptor limit was reached")
        #expect(serve.interrupt(exitWithin: 10) == 0, "Ctrl-C stops serve after its descriptor limit was reached, exit status 0")
    }
}
