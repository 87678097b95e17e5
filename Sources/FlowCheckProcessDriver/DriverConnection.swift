import FlowCheckFakeServer
import FlowCheckRunner
import FlowCheckSpec
import FlowCheckTestSupport
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
    /// The flow's masking (``DriverContext/mask``): applied to what the driver wrote before
    /// any of it is quoted, cut or kept, so no secret is ever cut in half and left showing.
    private let mask: @Sendable (String) -> String

    /// Everything the flow's tasks, the reader threads and the deadlines share.
    private struct State {
        var child: DriverChild?
        var nextID = 1
        /// Questions awaiting their answers, by id: what was asked (`call products (id 3)`),
        /// whether it is an app call (events belong to calls in flight), and its waiter.
        var pending: [Int: (what: String, isCall: Bool, resume: @Sendable (Result<DriverMessage, DriverError>) -> Void)] = [:]
        /// The last call answered, for an event that comes after its call's answer.
        var lastAnswered: String?
        /// Browser events (and waits) since the latest call was asked: capped at
        /// ``eventsPerCall``, so a driver cannot make the runner keep (and report) without end.
        var events = 0
        /// Waiting for `hello` or `ready`: its serial (so a deadline fires for its own wait
        /// only, never for the next one), the message awaited, and the waiter.
        var greeting: (serial: Int, what: String, resume: @Sendable (Result<DriverMessage, DriverError>) -> Void)?
        var greetings = 0
        /// A `hello` that came before anyone waited for it.
        var early: DriverMessage?
        /// The greeting the protocol allows next: `hello` from the start (a driver may send it,
        /// or die, before anyone waits), `ready` once `start` is on its way, then none.
        var expected: String? = "hello"
        var broken: DriverError?
        /// A break is being recorded (its process killed, its stderr read to the end).
        var breaking = false
        var stopping = false
        var window: BrowserWindow?
        /// The flow's clock, once `start` is sent: a `wait` moves it.
        var clock: ManualClock?
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

    init(command: String, label: String, deadlines: ProcessDriver.Deadlines, trace: URL?, mask: @escaping @Sendable (String) -> String = { $0 }) throws {
        self.command = command
        self.label = label
        self.deadlines = deadlines
        self.mask = mask
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
            throw DriverError("driver \(label) (\(command)) could not be started: \(error)", party: .driverProtocol)
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
        guard case .hello(let hello) = message else { throw failure("sent \(message.typeName) before hello", voids: true) }
        return hello
    }

    /// Sends `start`, waits for `ready`, and from then on forwards clock moves and plays
    /// browser events into the flow's window.
    func start(_ context: DriverContext) async throws {
        state.withLock { state in
            state.window = context.browser
            state.clock = context.clock
        }
        activity.withLock { $0 = context.activity }
        let clock = context.clock
        let message = try await greet(what: "ready", send: .start(
            flow: context.flowID, provider: context.provider.rawValue, baseURL: context.baseURL.absoluteString,
            baseURLs: context.baseURLs.mapValues(\.absoluteString), storageDirectory: context.storageDirectory.path, now: clock.now))
        guard case .ready = message else { throw failure("answered start with \(message.typeName), not ready", voids: true) }
        // Sent under the write lock with the time read then: two moves racing each other still
        // leave the driver at the clock's latest time.
        // Weak both ways: the clock keeps its observers, and must not keep itself alive.
        clock.onChange { [weak self, weak clock] _ in
            guard let clock else { return }
            self?.write { .clock(clock.now) }
        }
    }

    /// Sends the message `make` builds with a fresh id, and waits for the answer with that id.
    /// - Parameter isCall: an app call: the driver's browser events belong to calls in flight.
    func ask(what: String, isCall: Bool = false, written: (@Sendable () -> Void)? = nil, _ make: (Int) -> RunnerMessage) async throws -> DriverMessage {
        let limit = deadlines.answer
        let result: Result<DriverMessage, DriverError> = await withCheckedContinuation { continuation in
            let once = Once(continuation)
            let (id, refused) = state.withLock { state -> (Int, DriverError?) in
                if let broken = state.broken { return (0, broken) }
                let id = state.nextID
                state.nextID += 1
                state.pending[id] = ("\(what) (id \(id))", isCall, { once.resume($0) })
                if isCall { state.events = 0 }
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
                if late { onOwnThread("flowcheck driver deadline") { self.breakDown("did not answer \(what) (id \(id)) within \(Self.written(limit))") } }
            }
            write(make(id))
            written?()
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
    func finish() -> DriverError? {
        stop()
        let (real, problem) = state.withLock { ($0.realBreak, $0.stopProblem) }
        if let real { return real }
        return problem.map { failure($0) }
    }

    /// The error for a driver that broke: its label, command, what happened and its stderr,
    /// the driver protocol's to answer for.
    /// - Parameter voids: it broke while the flow ran, so nothing the flow found since counts
    ///   (``DriverError/voidsTheFlow``); false for a stop not kept to, after the verdict.
    func failure(_ what: String, voids: Bool = false) -> DriverError {
        let tail = state.withLock { $0.stderrLines.suffix(Self.errorTail) }
        let stderr = tail.isEmpty ? "; it wrote nothing to stderr" : "; its last stderr lines:\n" + tail.map { "    " + $0 }.joined(separator: "\n")
        let named = label == command ? "driver (\(command))" : "driver \(label) (\(command))"
        return DriverError("\(named) \(mask(what))\(stderr)", party: .driverProtocol, voidsTheFlow: voids)
    }

    /// Text the driver wrote, as errors quote it: masked first, then cut (``SpecText/quoted(_:limit:)``),
    /// so a secret near the cut is masked whole rather than half shown.
    func quoted(_ text: String, limit: Int = SpecText.quoteLimit) -> String {
        SpecText.quoted(mask(text), limit: limit)
    }

    /// What the runner was waiting for from the driver just now, for an error: `before it sent
    /// ready`, `while the runner awaited its answer to call products (id 3)`.
    private static func awaited(_ state: State) -> String {
        if let greeting = state.greeting { return "before it sent \(greeting.what)" }
        if let expected = state.expected { return "before it sent \(expected)" }
        if let (_, first) = state.pending.min(by: { $0.key < $1.key }) { return "while the runner awaited its answer to \(first.what)" }
        return "between questions, before the flow ended"
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
            let when = state.withLock { Self.awaited($0) }
            breakDown(ending.map { "\($0.description) \(when)" } ?? "closed its stdout \(when)")
            return
        }
        trace?.append(to: "runner", line)
        let message: DriverMessage
        do {
            message = try DriverMessage.parse(line)
        } catch {
            breakDown("wrote a line that is not a protocol message (\(mask(error.reason))): \(quoted(line))")
            return
        }
        switch message {
        case .hello, .ready:
            // Each greeting once, in its place: hello first, ready only as start's answer.
            let outcome = state.withLock { state -> (waiter: (@Sendable (Result<DriverMessage, DriverError>) -> Void)?, problem: String?) in
                let type = message.typeName
                guard type == state.expected else {
                    switch (type, state.expected) {
                    case ("hello", _): return (nil, "sent hello a second time (a driver greets once, first)")
                    case (_, "hello"?): return (nil, "sent ready before hello (a driver says hello first, and ready only as its answer to start)")
                    default: return (nil, "sent ready when no start awaited it (ready is the one answer to start)")
                    }
                }
                state.expected = nil
                if let greeting = state.greeting {
                    state.greeting = nil
                    return (greeting.resume, nil)
                }
                state.early = message
                return (nil, nil)
            }
            if let problem = outcome.problem {
                breakDown(problem)
                return
            }
            outcome.waiter?(.success(message))
        case .browserOpen(let text):
            if let late = lateEvent("browserOpen") {
                breakDown(late)
                return
            }
            guard let url = URL(string: text), url.scheme != nil else {
                breakDown("sent browserOpen with \(quoted(text)), which is not a URL")
                return
            }
            state.withLock { $0.window }?.open(url)
        case .browserDismiss:
            if let late = lateEvent("browserDismiss") {
                breakDown(late)
                return
            }
            state.withLock { $0.window }?.dismiss()
        case .wait(let until):
            if let late = lateEvent("wait") {
                breakDown(late)
                return
            }
            guard let clock = state.withLock({ $0.clock }) else { return }
            // A pause that moved the clock has told the driver already (the clock's observer);
            // one that did not is answered here, so a wait always gets its `clock` message.
            let pause = clock.grantPause(until: until)
            if !pause.granted {
                write { .clock(clock.now, refused: until) }
            } else if pause.seconds == 0 {
                write { .clock(clock.now) }
            }
        case .fatal(let text):
            breakDown("gave up: \(quoted(text))")
        case .ok, .error, .crashed, .unsupported, .store, .storeLocation, .crashStore:
            let id = message.answers ?? 0
            let waiter = state.withLock { state -> (what: String, isCall: Bool, resume: @Sendable (Result<DriverMessage, DriverError>) -> Void)? in
                guard let waiter = state.pending.removeValue(forKey: id) else { return nil }
                if waiter.isCall { state.lastAnswered = waiter.what }
                return waiter
            }
            guard let waiter else {
                breakDown("answered id \(id), which no question is waiting for")
                return
            }
            waiter.resume(.success(message))
        }
    }

    /// Why an event cannot be played now, or nil when it can: an event (a page opened or
    /// dismissed) is the SDK's doing during an app call, so it belongs before that call's
    /// answer. One that comes while no call is in flight (after its call's answer, say) cannot
    /// be told apart from one the SDK never made: it is the driver protocol's error, never a
    /// page "the SDK did not open".
    /// More browser events or waits during one call than any login needs; past it the driver
    /// breaks the protocol (200,000 `browserOpen` kept 166 MB and made a 7.4 MB report).
    static let eventsPerCall = 1_000

    private func lateEvent(_ type: String) -> String? {
        state.withLock { state -> String? in
            if state.pending.values.contains(where: \.isCall) {
                state.events += 1
                guard state.events > Self.eventsPerCall else { return nil }
                return "sent more than \(Self.eventsPerCall) browser events and waits during one call (the latest a \(type)); a call opens a few pages at most"
            }
            let after = state.lastAnswered.map { " after its answer to \($0)" } ?? (state.expected != nil ? " before the flow started" : "")
            return "sent \(type)\(after), while no call was in flight: an event belongs before the answer to the call that caused it (docs/protocol.md, \"Events\")"
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
        let when = state.withLock { Self.awaited($0) }
        breakDown("\(ending.description) \(when)")
    }

    private func logged(_ line: String) {
        // Masked before it is cut: a secret across the cut is masked whole, not half shown.
        let kept = SpecText.oneLine(Self.kept(Self.maskingBasicCredentials(mask(line))))
        state.withLock { state in
            state.stderrLines.append(kept)
            if state.stderrLines.count > Self.logLimit {
                state.stderrLines.removeFirst()
                state.stderrDropped += 1
            }
        }
    }

    // MARK: - Sending and failing

    /// Waits for `hello` or `ready` (after sending `send`), each within its own deadline.
    private func greet(what: String, send message: RunnerMessage?) async throws -> DriverMessage {
        let limit = message == nil ? deadlines.hello : deadlines.ready
        let since = message == nil ? "of starting" : "of start"
        // A cancelled wait (Ctrl-C while `flowcheck matrix` probes a driver) ends at once: the
        // driver's group is killed and the wait fails, rather than lasting out the deadline.
        let result: Result<DriverMessage, DriverError> = await withTaskCancellationHandler {
            await awaitGreeting(what: what, send: message, limit: limit, since: since)
        } onCancel: {
            onOwnThread("flowcheck driver cancel") { self.breakDown("was stopped before it sent \(what): the run was interrupted") }
        }
        return try result.get()
    }

    private func awaitGreeting(what: String, send message: RunnerMessage?, limit: Duration, since: String) async -> Result<DriverMessage, DriverError> {
        await withCheckedContinuation { continuation in
            let once = Once(continuation)
            let (ready, refused, serial) = state.withLock { state -> (DriverMessage?, DriverError?, Int) in
                if let broken = state.broken { return (nil, broken, 0) }
                if message == nil, let early = state.early {
                    state.early = nil
                    return (early, nil, 0)
                }
                state.greetings += 1
                state.greeting = (state.greetings, what, { once.resume($0) })
                // `ready` is the answer to the start about to be written.
                if message != nil { state.expected = what }
                return (nil, nil, state.greetings)
            }
            if let refused { once.resume(.failure(refused)); return }
            if let ready { once.resume(.success(ready)); return }
            if let message, !write(message) { return }
            DispatchQueue.global().asyncAfter(deadline: .now() + Self.seconds(limit)) { [weak self] in
                guard let self else { return }
                // This wait's own deadline: the hello deadline must never fire on the wait
                // for ready that follows it.
                let late = self.state.withLock { $0.greeting?.serial == serial }
                if late { onOwnThread("flowcheck driver deadline") { self.breakDown("did not send \(what) within \(Self.written(limit)) \(since)") } }
            }
        }
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
        let error = what.map { failure($0, voids: true) } ?? DriverError("driver \(label) was stopped", party: .driverProtocol)
        let waiters = state.withLock { state -> [@Sendable (Result<DriverMessage, DriverError>) -> Void] in
            guard state.broken == nil else { return [] }
            state.broken = error
            if what != nil { state.realBreak = error }
            let all = state.pending.values.map(\.resume) + (state.greeting.map { [$0.resume] } ?? [])
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
