import Foundation
import FlowCheckTestLanes
import Testing
import FlowCheckTestSupport
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
        let child: Spawned
        let stdout: PausedReader
        private let exited = OneShot<Int32>()
        /// Whether the child is still unreaped (its pid its own), under `lock`.
        private let lock = NSLock()
        private var running = true

        /// - Parameter descriptorLimit: a lower `ulimit -n` for serve (through /bin/sh).
        init(_ arguments: [String], descriptorLimit: Int? = nil) throws {
            let binary = try FlowCheckBinaryTests.binary()
            var command = [binary.path, "serve"] + arguments
            if let descriptorLimit {
                command = ["/bin/sh", "-c", "ulimit -n \(descriptorLimit) && exec \"$0\" \"$@\""] + command
            }
            // As ChildProcess does: the server dies with the test process.
            if let setpriv = ["/usr/bin/setpriv", "/bin/setpriv"].first(where: FileManager.default.isExecutableFile(atPath:)) {
                command = [setpriv, "--pdeathsig", "KILL", "--"] + command
            }
            child = try Spawned(executable: command[0], arguments: Array(command.dropFirst()))
            stdout = PausedReader(fd: child.stdout, pauseAfter: "Ctrl-C stops.")
            let (child, exited, lock) = (child, exited, lock)
            // stderr is not looked at, but read, so serve never blocks on it.
            Thread {
                var scratch = [UInt8](repeating: 0, count: 4096)
                while scratch.withUnsafeMutableBytes({ read(child.stderr, $0.baseAddress, $0.count) }) > 0 {}
                close(child.stderr)
            }.start()
            Thread { [weak self] in
                let status = child.waitForExit()
                lock.withLock { self?.running = false }
                exited.fulfil(.success(status))
            }.start()
        }

        /// The port of the provider whose ready line starts with `name`.
        func port(of name: String) async throws -> Int {
            let text = try #require(try await stdout.wait(for: "Ctrl-C stops."), "flowcheck serve: its output ended without a ready line")
            let line = try #require(text.split(separator: "\n").first { $0.hasPrefix(name) })
            return try #require(URL(string: String(line.split(separator: " ").last ?? ""))?.port)
        }

        /// SIGINT, then the exit status.
        /// - Throws: ``WaitTimedOut`` if serve has not exited within the hang bound.
        func interrupt() async throws -> Int32 {
            signal(SIGINT)
            return try await exited.value("flowcheck serve: no exit after SIGINT")
        }

        /// Sends `number` while serve is still unreaped.
        func signal(_ number: Int32) {
            lock.withLock { if running { child.signal(number) } }
        }

        deinit {
            signal(SIGKILL)
        }
    }

    static let productsRequest = "GET /v1/products HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"

    /// Whether the server closed (or reset) the connection, rather than the stream failing.
    static func closedByServer(_ connection: RawConnection) async throws -> Bool {
        let (_, error) = try await connection.readUntilClosed()
        return error == nil || error == ECONNRESET
    }

    @Test func answersEveryRequestWhileNobodyReadsItsStdout() async throws {
        let serve = try Serve([])
        let port = try await serve.port(of: "moltin")
        // The reader has stopped: about 4,000 log lines (well over a pipe's 64 KiB) find
        // nobody reading them, and every request is still answered.
        let connection = try await RawConnection.connect(port: port)
        var answered = 0
        for _ in 0..<4_000 {
            guard try await connection.send(Self.productsRequest), try await connection.readResponse() != nil else { break }
            answered += 1
        }
        #expect(answered == 4_000, "every request answered with stdout unread")
        serve.stdout.resume()
        // The count comes after the lines queued before the drops: once it is read, nothing
        // is left for serve's 1 s drain at Ctrl-C but "Stopped." (on a loaded machine the
        // backlog alone could take longer).
        #expect(try await serve.stdout.wait(for: "log lines dropped") != nil, "the dropped lines are counted and reported")
        #expect(try await serve.interrupt() == 0, "Ctrl-C stops serve, exit status 0")
        let text = try #require(try await serve.stdout.all(), "stdout ends once serve has exited")
        #expect(text.contains("Stopped."))
    }

    @Test func shedsConnectionsBeyondItsCapAndStillStopsOnInterrupt() async throws {
        let serve = try Serve(["--max-connections", "4"])
        let port = try await serve.port(of: "moltin")
        let control = try await serve.port(of: "control")
        serve.stdout.resume()
        // Four requests held by the fake (a hold fault, armed through the control API): their
        // connections are busy, not idle, for as long as the test needs, so none can be closed
        // for a newcomer and ten more are shed.
        let arm = try await RawConnection.connect(port: control)
        let fault = #"{"provider": "moltin", "kind": "hold", "path": "/v1/products", "times": 4}"#
        #expect(try await arm.send("POST /faults HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: \(fault.utf8.count)\r\nConnection: close\r\n\r\n" + fault))
        let armed = try #require(try await arm.readResponse()?.status)
        #expect((200..<300).contains(armed), "the hold is armed")
        var kept: [RawConnection] = []
        for _ in 0..<4 {
            let connection = try await RawConnection.connect(port: port)
            #expect(try await connection.send(Self.productsRequest))
            kept.append(connection)
        }
        for _ in 0..<10 {
            let extra = try await RawConnection.connect(port: port)
            #expect(try await extra.readResponse()?.status == 503, "beyond the cap, none idle: 503")
            #expect(try await Self.closedByServer(extra), "and closed")
        }
        #expect(try await serve.interrupt() == 0, "Ctrl-C stops serve at its cap, exit status 0")
        for connection in kept { #expect(try await Self.closedByServer(connection), "held connections are closed at stop") }
    }

    @Test func recoversFromItsDescriptorLimitAndStillStopsOnInterrupt() async throws {
        // 40 descriptors: the process's own, five listeners, and room for a few dozen
        // connections, far fewer than the cap, so accept() itself runs out (EMFILE).
        let serve = try Serve([], descriptorLimit: 40)
        let port = try await serve.port(of: "moltin")
        serve.stdout.resume()
        // A probe, not a speed test: a loopback connect completes in the kernel in well under
        // a millisecond; one not done within 5 s is a SYN the kernel dropped (the backlog of
        // connections serve cannot accept is full), and a request unanswered that long is one
        // that waits in that backlog. Either way, try again.
        let probe: Duration = .seconds(5)
        var idle: [RawConnection] = []
        for _ in 0..<80 {
            // Connects complete in the kernel's backlog even when serve cannot accept them.
            guard let connection = try? await RawConnection.connect(port: port, patience: probe) else { break }
            idle.append(connection)
        }
        #expect(idle.count > 40, "more connections than serve has descriptors for")
        idle.removeAll()
        // Every descriptor comes back: once the idle ones are gone, a client is served again.
        var served = false
        let deadline = ContinuousClock.now + HangBound.standard
        while !served, ContinuousClock.now < deadline {
            guard let client = try? await RawConnection.connect(port: port, patience: probe),
                  (try? await client.send(Self.productsRequest)) == true else { continue }
            served = ((try? await client.readResponse())??.status).map { $0 != 503 } ?? false
        }
        #expect(served, "served again after its descriptor limit was reached")
        #expect(try await serve.interrupt() == 0, "Ctrl-C stops serve after its descriptor limit was reached, exit status 0")
    }
}
