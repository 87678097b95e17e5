import FlowCheckFakeServer
import FlowCheckRunner
import FlowCheckSpec
import Foundation

/// The runner's end of one driver process: writes messages, matches answers to the questions
/// by id (several calls may be in flight), plays the driver's browser events into the flow's
/// window, tells the driver every move of the clock, and turns every way a driver can break
/// into one ``DriverError`` that names it and shows the last lines of its stderr.
final class DriverConnection: Sendable {
    /// The name errors use for the driver: its label and command.
    let label: String
    private let command: String
    private let deadlines: ProcessDriver.Deadlines

    /// Everything the flow's tasks, the reader threads and the deadlines share.
    private struct State {
        var child: DriverChild?
        var nextID = 1
        var pending: [Int: (what: String, resume: @Sendable (Result<DriverMessage, DriverError>) -> Void)] = [:]
        /// Waiting for `hello` or `ready`.
        var greeting: (@Sendable (Result<DriverMessage, DriverError>) -> Void)?
        var early: [DriverMessage] = []
        /// What the runner waits for before the flow starts (`hello`, then `ready`), for errors;
        /// `hello` from the start, since a driver may die before anyone waits.
        var awaiting: String? = "hello"
        var broken: DriverError?
        /// A break is being recorded (its process killed, its stderr read to the end).
        var breaking = false
        var stopping = false
        var window: BrowserWindow?
        var stderrLines: [String] = []
        var stderrDropped = 0
        /// What went wrong at `stop` (no exit in time, a failing status), for ``finish()``.
        var stopProblem: String?
        /// The first break that was not a stop on purpose: what ``finish()`` reports.
        var realBreak: DriverError?
    }

    private let state = Locked(State())
    private let trace: TraceFile?
    /// The flow's progress meter once `start` has it: every line the driver writes, on stdout
    /// or stderr, is progress to the flow's watchdog.
    private let activity = Locked<ActivityMeter?>(nil)
    /// Signalled once `child` is set: its reader threads start inside its init, so a driver that
    /// ends at once can be heard of before then.
    private let childSet = DispatchSemaphore(value: 0)
    /// Signalled when the driver's stdout has ended.
    private let outputEnded = DispatchSemaphore(value: 0)

    /// Lines of stderr kept for the transcript, and shown in errors (the last ``errorTail``).
    static let logLimit = 200
    static let errorTail = 10

    init(command: String, label: String, deadlines: ProcessDriver.Deadlines, trace: URL?) throws {
        self.command = command
        self.label = label
        self.deadlines = deadlines
        self.trace = trace.map(TraceFile.init)
        var environment = ProcessInfo.processInfo.environment
        environment["FLOWCHECK_DRIVER_PROTOCOL"] = String(DriverMessage.protocolVersion)
        do {
            let child = try DriverChild(command: command, environment: environment, onOutput: { [weak self] output in
                self?.activity.withLock { $0 }?.tick()
                self?.received(output)
            }, onLog: { [weak self] line in
                self?.activity.withLock { $0 }?.tick()
                self?.logged(line)
            }, onExit: { [weak self] ending in
                self?.exited(ending)
            })
            state.withLock { $0.child = child }
        } catch {
            childSet.signal()
            throw DriverError("driver \(label) (\(command)): \(error)")
        }
        childSet.signal()
    }

    /// Every stderr line so far (at most ``logLimit``, the latest).
    var log: [String] {
        state.withLock { state in (state.stderrDropped > 0 ? ["… \(state.stderrDropped) earlier lines"] : []) + state.stderrLines }
    }

    /// Waits for the driver's `hello`.
    func awaitHello() async throws -> DriverHello {
        let message = try await greet(what: "hello", send: nil)
        guard case .hello(let hello) = message else { throw failure("sent \(message.typeName) before hello") }
        return hello
    }

    /// Sends `start`, waits for `ready`, and from then on forwards clock moves and plays
    /// browser events into the flow's window.
    func start(_ context: DriverContext) async throws {
        state.withLock { $0.window = context.browser }
        activity.withLock { $0 = context.activity }
        let clock = context.clock
        let message = try await greet(what: "ready", send: .start(
            flow: context.flowID, provider: context.provider.rawValue, baseURL: context.baseURL.absoluteString,
            baseURLs: context.baseURLs.mapValues(\.absoluteString), storageDirectory: context.storageDirectory.path, now: clock.now))
        guard case .ready = message else { throw failure("answered start with \(message.typeName), not ready") }
        // Sent under the write lock with the time read then: two moves racing each other still
        // leave the driver at the clock's latest time.
        // Weak both ways: the clock keeps its observers, and must not keep itself alive.
        clock.onChange { [weak self, weak clock] _ in
            guard let clock else { return }
            self?.write { .clock(clock.now) }
        }
    }

    /// Sends the message `make` builds with a fresh id, and waits for the answer with that id.
    func ask(what: String, _ make: (Int) -> RunnerMessage) async throws -> DriverMessage {
        let limit = deadlines.answer
        let result: Result<DriverMessage, DriverError> = await withCheckedContinuation { continuation in
            let once = Once(continuation)
            let (id, refused) = state.withLock { state -> (Int, DriverError?) in
                if let broken = state.broken { return (0, broken) }
                let id = state.nextID
                state.nextID += 1
                state.pending[id] = (what, { once.resume($0) })
                return (id, nil)
            }
            if let refused { once.resume(.failure(refused)); return }
            // Armed before the write: a driver that stops reading its stdin cannot hold a full
            // pipe's write past the deadline (the break kills it, which ends the write).
            DispatchQueue.global().asyncAfter(deadline: .now() + Self.seconds(limit)) { [weak self] in
                guard let self else { return }
                let late = self.state.withLock { $0.pending[id] != nil }
                // The break kills and waits: on a thread of its own, never on Dispatch's
                // global pool, which Swift's tasks share on Linux.
                if late { onOwnThread("flowcheck driver deadline") { self.breakDown("did not answer \(what) within \(Self.written(limit))") } }
            }
            write(make(id))
        }
        return try result.get()
    }

    /// Sends `stop`, gives the process its exit deadline, then kills its process group.
    func stop() {
        let child = state.withLock { state -> DriverChild? in
            state.stopping = true
            return state.child
        }
        guard let child else { return }
        child.write(RunnerMessage.stop.line)
        trace?.append(to: "driver", RunnerMessage.stop.line)
        child.closeInput()
        let ending = child.wait(upTo: deadlines.exit)
        // What it wrote before it went is read to the end first: a line that breaks the
        // protocol after the last question still counts.
        if ending != nil, outputEnded.wait(timeout: .now() + .seconds(1)) == .success { outputEnded.signal() }
        // Whatever is left of its process group goes, and the readers are let go.
        child.kill()
        let problem: String?
        switch ending {
        case nil: problem = "did not exit within \(Self.written(deadlines.exit)) of stop; its process group was killed"
        case .exited(0)?: problem = nil
        case let other?: problem = "\(other.description) after stop (a driver exits with status 0)"
        }
        state.withLock { state in
            state.child = nil
            if state.broken == nil { state.stopProblem = problem }
        }
        breakDown(nil)
    }

    /// Stops the driver and says what went wrong in the flow's life that no answer carried: a
    /// break after the flow's last question (an answer nobody asked for, an exit), or a stop it
    /// did not keep to. nil when all was well.
    func finish() -> String? {
        stop()
        let (real, problem) = state.withLock { ($0.realBreak, $0.stopProblem) }
        if let real { return real.description }
        return problem.map { failure($0).description }
    }

    /// The error for a driver that broke: its label, command, what happened and its stderr.
    func failure(_ what: String) -> DriverError {
        let tail = state.withLock { $0.stderrLines.suffix(Self.errorTail) }
        let stderr = tail.isEmpty ? "; it wrote nothing to stderr" : "; its last stderr lines:\n" + tail.map { "    " + $0 }.joined(separator: "\n")
        let named = label == command ? "driver (\(command))" : "driver \(label) (\(command))"
        return DriverError("\(named) \(what)\(stderr)")
    }

    // MARK: - Receiving

    private func received(_ output: DriverChild.Output) {
        let line: String
        switch output {
        case .line(let text): line = text
        case .tooLong:
            breakDown("wrote a line longer than \(DriverChild.maximumLine / (1 << 20)) MiB, which is not a protocol message")
            return
        case .end:
            outputEnded.signal()
            // End of its stdout: it exited, or closed it.
            let expected = state.withLock { $0.stopping }
            if expected { return }
            // An exit usually follows at once; the reaper's word on it is the better cause.
            let ending = startedChild()?.wait(upTo: .seconds(5))
            let when = state.withLock { $0.awaiting.map { "before it sent \($0)" } ?? "before the flow ended" }
            breakDown(ending.map { "\($0.description) \(when)" } ?? "closed its stdout \(when)")
            return
        }
        trace?.append(to: "runner", line)
        let message: DriverMessage
        do {
            message = try DriverMessage.parse(line)
        } catch {
            breakDown("wrote a line that is not a protocol message (\(error.reason)): \(SpecText.quoted(line))")
            return
        }
        switch message {
        case .hello, .ready:
            let waiter = state.withLock { state -> (@Sendable (Result<DriverMessage, DriverError>) -> Void)? in
                defer { state.greeting = nil }
                if state.greeting == nil { state.early.append(message) }
                return state.greeting
            }
            state.withLock { $0.awaiting = nil }
            waiter?(.success(message))
        case .browserOpen(let text):
            guard let url = URL(string: text), url.scheme != nil else {
                breakDown("sent browserOpen with \(SpecText.quoted(text)), which is not a URL")
                return
            }
            state.withLock { $0.window }?.open(url)
        case .browserDismiss:
            state.withLock { $0.window }?.dismiss()
        case .fatal(let text):
            breakDown("gave up: \(SpecText.quoted(text))")
        case .ok, .error, .crashed, .unsupported, .store, .storeLocation, .crashStore:
            let id = message.answers ?? 0
            let waiter = state.withLock { $0.pending.removeValue(forKey: id) }
            guard let waiter else {
                breakDown("answered id \(id), which no question is waiting for")
                return
            }
            waiter.resume(.success(message))
        }
    }

    /// The child, once its init has returned (at most a few seconds of waiting).
    private func startedChild() -> DriverChild? {
        if childSet.wait(timeout: .now() + .seconds(5)) == .success { childSet.signal() }
        return state.withLock { $0.child }
    }

    /// The process ended (seen by the reaper, even while something else holds its stdout open).
    private func exited(_ ending: DriverChild.Ending) {
        if state.withLock({ $0.stopping }) { return }
        // What it wrote last (a fatal message, an answer) is read first, briefly.
        if outputEnded.wait(timeout: .now() + .milliseconds(500)) == .success { outputEnded.signal() }
        let when = state.withLock { $0.awaiting.map { "before it sent \($0)" } ?? "before the flow ended" }
        breakDown("\(ending.description) \(when)")
    }

    private func logged(_ line: String) {
        let kept = SpecText.oneLine(Self.kept(Self.maskingBasicCredentials(line)))
        state.withLock { state in
            state.stderrLines.append(kept)
            if state.stderrLines.count > Self.logLimit {
                state.stderrLines.removeFirst()
                state.stderrDropped += 1
            }
        }
    }

    // MARK: - Sending and failing

    /// Waits for `hello` or `ready` (after sending `send`), within the hello deadline.
    private func greet(what: String, send message: RunnerMessage?) async throws -> DriverMessage {
        let limit = deadlines.hello
        let result: Result<DriverMessage, DriverError> = await withCheckedContinuation { continuation in
            let once = Once(continuation)
            let (ready, refused) = state.withLock { state -> (DriverMessage?, DriverError?) in
                if let broken = state.broken { return (nil, broken) }
                if !state.early.isEmpty { return (state.early.removeFirst(), nil) }
                state.greeting = { once.resume($0) }
                state.awaiting = what
                return (nil, nil)
            }
            if let refused { once.resume(.failure(refused)); return }
            if let ready { once.resume(.success(ready)); return }
            if let message, !write(message) { return }
            DispatchQueue.global().asyncAfter(deadline: .now() + Self.seconds(limit)) { [weak self] in
                guard let self else { return }
                let late = self.state.withLock { $0.greeting != nil }
                if late { onOwnThread("flowcheck driver deadline") { self.breakDown("did not send \(what) within \(Self.written(limit))") } }
            }
        }
        return try result.get()
    }

    /// Writes one message; a driver that no longer reads breaks the connection.
    @discardableResult
    private func write(_ message: RunnerMessage) -> Bool {
        write { message }
    }

    /// Writes the message `make` builds under the child's write lock: a `clock` message reads
    /// the time there, so two moves racing each other still leave the driver at the latest.
    @discardableResult
    private func write(_ make: () -> RunnerMessage) -> Bool {
        guard let child = state.withLock({ $0.broken == nil ? $0.child : nil }) else { return false }
        let trace = self.trace
        let written = child.write {
            let line = make().line
            trace?.append(to: "driver", line)
            return line
        }
        if written { return true }
        let ending = child.wait(upTo: .seconds(2))
        breakDown(ending.map { "\($0.description) before the flow ended" } ?? "stopped reading its stdin")
        return false
    }

    /// Marks the connection broken (once) and fails everything waiting with the one error;
    /// nil when it was stopped on purpose.
    private func breakDown(_ what: String?) {
        // The first break names the cause; what follows from it (killing the process closes
        // its stdout, which reads as an exit) must not replace it.
        let first = state.withLock { state -> Bool in
            guard state.broken == nil, !state.breaking else { return false }
            state.breaking = true
            return true
        }
        guard first else { return }
        if what != nil, let child = startedChild() {
            // Nothing more is asked of it: its process group goes now, and what it wrote to
            // stderr up to then (its last words often explain the break) is read to the end.
            child.kill()
            child.waitForLogEnd(upTo: .seconds(1))
        }
        let error = what.map(failure) ?? DriverError("driver \(label) was stopped")
        let waiters = state.withLock { state -> [@Sendable (Result<DriverMessage, DriverError>) -> Void] in
            guard state.broken == nil else { return [] }
            state.broken = error
            if what != nil { state.realBreak = error }
            let all = state.pending.values.map(\.resume) + (state.greeting.map { [$0] } ?? [])
            state.pending = [:]
            state.greeting = nil
            return all
        }
        for waiter in waiters { waiter(.failure(error)) }
    }

    /// A stderr line as kept: at most 500 characters, cut at a space so that no secret is left
    /// half-shown (the redactor masks whole values, and half of one is not one).
    static func kept(_ line: String) -> String {
        guard line.count > 500 else { return line }
        let head = line.prefix(500)
        guard let space = head.lastIndex(where: { $0 == " " || $0 == "\t" }) else {
            return "(a line of \(line.count) characters with no space in its first 500, not kept)"
        }
        return String(head[..<space]) + " … (\(line.count - head.distance(from: head.startIndex, to: space)) more characters)"
    }

    /// `Basic <base64>` credentials in a log line, masked: they carry a client secret the
    /// redactor knows only in other forms (base64 of `id:secret`, not of the secret alone).
    static func maskingBasicCredentials(_ line: String) -> String {
        guard line.range(of: "basic", options: .caseInsensitive) != nil else { return line }
        var out = ""
        var rest = Substring(line)
        while let found = rest.range(of: "basic", options: .caseInsensitive) {
            out += rest[..<found.upperBound]
            rest = rest[found.upperBound...]
            let spaces = rest.prefix { $0 == " " || $0 == "\t" || $0 == "=" || $0 == ":" }
            let token = rest.dropFirst(spaces.count).prefix { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "+" || $0 == "/" || $0 == "=" || $0 == "-" || $0 == "_") }
            if !spaces.isEmpty && token.count >= 8 {
                out += spaces + Redactor.mask
                rest = rest.dropFirst(spaces.count + token.count)
            }
        }
        return out + rest
    }

    /// `20 s`, `0.5 s`.
    private static func written(_ duration: Duration) -> String {
        let value = seconds(duration)
        return (value == value.rounded() ? String(Int(value)) : String(value)) + " s"
    }

    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    /// Resumes a continuation exactly once, whoever gets there first (answer, deadline, break).
    private final class Once: Sendable {
        private let continuation: Locked<CheckedContinuation<Result<DriverMessage, DriverError>, Never>?>

        init(_ continuation: CheckedContinuation<Result<DriverMessage, DriverError>, Never>) {
            self.continuation = Locked(continuation)
        }

        func resume(_ result: Result<DriverMessage, DriverError>) {
            let taken = continuation.withLock { continuation in
                defer { continuation = nil }
                return continuation
            }
            taken?.resume(returning: result)
        }
    }
}

/// Appends a flow's traffic to a JSON-lines file, one `{"to": ..., "line": ...}` per message.
final class TraceFile: Sendable {
    private let url: URL
    /// Held while an entry is appended, so entries from the flow's threads never interleave.
    private let lock = NSLock()

    init(_ url: URL) {
        self.url = url
    }

    func append(to receiver: String, _ line: String) {
        let entry = #"{"to":"\#(receiver)","line":"\#(SpecText.escaped(line))"}"# + "\n"
        lock.withLock {
            if let handle = try? FileHandle(forWritingTo: url) {
                handle.seekToEndOfFile()
                handle.write(Data(entry.utf8))
                try? handle.close()
            } else {
                try? Data(entry.utf8).write(to: url)
            }
        }
    }
}
