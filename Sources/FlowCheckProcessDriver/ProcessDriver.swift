import FlowCheckRunner
import FlowCheckSpec
import Foundation

/// Puts an SDK in any language under the runner: each flow starts `command` as a process of its
/// own and talks to it in the driver protocol (JSON lines over its stdin and stdout;
/// `docs/protocol.md`, schema `Tests/Drivers/protocol.schema.json`).
///
/// One process per flow: a driver that crashes or hangs costs its own flow only, and flows run
/// at once as they do in process. A driver that dies, misses a deadline or writes anything that
/// is not a protocol message ends its flow as a harness error that names it (its name and
/// command) with the last lines of its stderr.
public struct ProcessDriver: FlowDriver {
    /// Real-time deadlines: a broken driver becomes a named error, never a hung run.
    public struct Deadlines: Sendable {
        /// From the start of the process to its `hello`.
        public var hello: Duration
        /// From `start` to `ready`: a timer of its own, naming what it awaits.
        public var ready: Duration
        /// For every answer to a call or a question.
        public var answer: Duration
        /// From `stop` to the process's exit; then its process group is killed.
        public var exit: Duration

        /// - Parameter ready: by default the same as `hello`.
        public init(hello: Duration = .seconds(15), ready: Duration? = nil, answer: Duration = .seconds(20), exit: Duration = .seconds(5)) {
            self.hello = hello
            self.ready = ready ?? hello
            self.answer = answer
            self.exit = exit
        }
    }

    /// The shell command, as given to `--driver`.
    public let command: String
    /// What the driver said in its `hello` (``probe(command:label:deadlines:)``).
    public let hello: DriverHello
    /// The name reports use: the driver's own name and version, from its `hello`.
    public let name: String
    public var deadlines: Deadlines
    /// When set, every line each flow exchanges with its driver is appended to
    /// `FOLDER/<flow id>.jsonl` as `{"to": "driver"|"runner", "line": ...}`, for checking the
    /// traffic against the published schema.
    public var traceDirectory: URL?

    /// Starts `command` once to read its `hello`, then stops it.
    /// - Parameter label: what errors before the `hello` call the driver (`flowcheck matrix
    ///   --driver NAME=...`); by default its command.
    /// - Throws: ``DriverError`` naming the command when it does not start, does not say
    ///   `hello` in time, or says something else.
    public static func probe(command: String, label: String? = nil, deadlines: Deadlines = Deadlines(), traceDirectory: URL? = nil) async throws -> ProcessDriver {
        let connection = try DriverConnection(command: command, label: label ?? command, deadlines: deadlines, trace: nil)
        let hello: DriverHello
        do {
            hello = try await connection.awaitHello()
        } catch {
            await offThePool { connection.stop() }
            throw error
        }
        await offThePool { connection.stop() }
        return ProcessDriver(command: command, hello: hello, name: "\(hello.name) \(hello.version)", deadlines: deadlines, traceDirectory: traceDirectory)
    }

    /// Kills every driver process still running, with its process group: for a command about
    /// to exit at once (a second signal, or one while a driver's first `hello` is awaited),
    /// whose drivers would otherwise outlive it in groups of their own.
    public static func killEveryDriverProcess() {
        DriverChild.killEveryLiveGroup()
    }

    public init(command: String, hello: DriverHello, name: String, deadlines: Deadlines = Deadlines(), traceDirectory: URL? = nil) {
        self.command = command
        self.hello = hello
        self.name = name
        self.deadlines = deadlines
        self.traceDirectory = traceDirectory
    }

    /// A flow of a provider the driver does not speak, or one that moves the clock when the
    /// driver cannot inject time, is skipped with the reason: never run, never passed.
    public func unsupportedReason(for spec: FlowSpec) async -> String? {
        guard let actions = hello.providers[spec.provider.rawValue] else {
            return "the driver \(name) does not speak \(spec.provider.rawValue) (it speaks \(hello.providers.keys.sorted().joined(separator: ", ")))"
        }
        let needed = Set(spec.steps.compactMap { step -> String? in
            if case .app(let action, _)? = step.action { return action }
            return nil
        })
        let missing = needed.subtracting(actions).sorted()
        if !missing.isEmpty {
            return "the driver \(name) does not perform the \(spec.provider.rawValue) action\(missing.count == 1 ? "" : "s") \(missing.joined(separator: ", "))"
        }
        if !hello.capabilities.contains(.virtualClock), let step = spec.steps.first(where: Self.movesTheClock) {
            return "the driver \(name) cannot inject time (no virtualClock capability), and step \(step.number) moves the clock"
        }
        // What a capability it lacks would have checked is not run, never passed with skips.
        if !hello.capabilities.contains(.fileStore), let step = spec.steps.first(where: Self.checksStoreFiles) {
            return "the driver \(name) has no file-backed store to measure (no fileStore capability), and step \(step.number) checks the store's files"
        }
        if !hello.capabilities.contains(.storeCrash), let step = spec.steps.first(where: { if case .crashStore? = $0.action { return true }; return false }) {
            return "the driver \(name) cannot crash its store mid-write (no storeCrash capability), and step \(step.number) does"
        }
        return nil
    }

    public func makeSession(for context: DriverContext) async throws -> any FlowSession {
        let trace = traceDirectory.map { $0.appendingPathComponent(context.flowID + ".jsonl") }
        let connection = try DriverConnection(command: command, label: name, deadlines: deadlines, trace: trace, mask: context.mask)
        do {
            _ = try await connection.awaitHello()
            try await connection.start(context)
        } catch {
            await offThePool { connection.stop() }
            throw error
        }
        return ProcessSession(connection: connection, hello: hello, storageDirectory: context.storageDirectory)
    }

    private static func checksStoreFiles(_ step: Step) -> Bool {
        step.expect?.checks.contains { check in
            if case .storeFiles(let kinds) = check { return !kinds.isEmpty }
            return false
        } ?? false
    }

    private static func movesTheClock(_ step: Step) -> Bool {
        switch step.action {
        case .advanceClock?: return true
        case .fault(let fault)?: return fault.clockAdvance != nil
        case .app?, .await?, .clearFaults?, .release?, .crashStore?, .server?, .browser?, .send?, nil: return false
        }
    }
}

/// One flow's SDK behind a driver process.
final class ProcessSession: FlowSession {
    private let connection: DriverConnection
    private let hello: DriverHello
    /// The folder `start` gave the driver: its store must live there.
    private let storageDirectory: URL

    init(connection: DriverConnection, hello: DriverHello, storageDirectory: URL) {
        self.connection = connection
        self.hello = hello
        self.storageDirectory = storageDirectory
    }

    func perform(_ call: AppCall) async throws -> CallOutcome {
        try await send(call, written: nil)
    }

    /// Under way once the call is on the driver's stdin: a question asked after it (a `store`
    /// check) is written after it, and a driver reads its messages in order.
    func performInBackground(_ call: AppCall, underway: @escaping @Sendable () -> Void) async throws -> CallOutcome {
        try await send(call, written: underway)
    }

    /// Writes the call, tells `written` once it is on the driver's stdin, and waits for its answer.
    private func send(_ call: AppCall, written: (@Sendable () -> Void)?) async throws -> CallOutcome {
        let answer = try await connection.ask(what: "call \(call.name)", isCall: true, written: written) { .call(id: $0, action: call.name, arguments: call.arguments) }
        switch answer {
        case .ok(_, let result): return .ok(result)
        case .error(_, let kind, let message): return .error(kind: kind, message: message)
        case .crashed(_, let message): return .crashed(message)
        case .unsupported(_, let message): throw connection.failure("cannot perform \"\(call.name)\": \(connection.quoted(message, limit: 500))")
        case .hello, .ready, .store, .storeLocation, .crashStore, .browserOpen, .browserDismiss, .wait, .fatal:
            throw connection.failure("answered call \(call.name) with \(answer.typeName)", voids: true)
        }
    }

    func storeContents() async throws -> [String: String] {
        let answer = try await connection.ask(what: "question store") { .store(id: $0) }
        guard case .store(_, let fields) = answer else { throw connection.failure("answered store with \(answer.typeName)", voids: true) }
        return fields
    }

    func opensExternalBrowser() async -> Bool {
        hello.capabilities.contains(.externalBrowser)
    }

    func storeLocation() async throws -> StoreLocation? {
        guard hello.capabilities.contains(.fileStore) else { return nil }
        let answer = try await connection.ask(what: "question storeLocation") { .storeLocation(id: $0) }
        guard case .storeLocation(_, let directory, let files) = answer else { throw connection.failure("answered storeLocation with \(answer.typeName)", voids: true) }
        // The harness measures the folder the driver names: it must be the one it was given
        // (or inside it), every symlink resolved by the kernel (realpath(3); Foundation's
        // resolver gives up quietly on long chains), or a tidy decoy could stand in for the
        // real store. What is measured is the resolved path, not the one the driver wrote.
        // The folder given may be gone too, when the store kept its files in it and removed it
        // with the last one: then it is where it would be, and only an empty store may be in it.
        guard let given = Self.realPath(storageDirectory.path) ?? Self.realPathOfMissing(storageDirectory.path) else {
            throw connection.failure("left no storageDirectory to measure (\(storageDirectory.path) is gone)")
        }
        // A folder the store removed with its last item (a `deleteToken` that takes the whole
        // folder) is an empty store, as long as it would lie inside the one given: measured
        // as the nearest folder that exists, with the rest of the path written on.
        let existing = Self.realPath(directory)
        guard let named = existing ?? Self.realPathOfMissing(directory), named == given || named.hasPrefix(given + "/") else {
            throw connection.failure("named its store folder \(connection.quoted(directory, limit: 200)), which is not the storageDirectory it was given (\(given)) nor a folder inside it")
        }
        if existing == nil, !files.isEmpty {
            throw connection.failure("named store files \(files.map { connection.quoted($0) }.joined(separator: ", ")) in \(connection.quoted(directory, limit: 200)), a folder that does not exist")
        }
        guard files.allSatisfy({ !$0.isEmpty && !$0.contains("/") && $0 != "." && $0 != ".." }) else {
            throw connection.failure("named store files \(files.map { connection.quoted($0) }.joined(separator: ", ")): each must be a file name in the folder")
        }
        return StoreLocation(directory: URL(fileURLWithPath: named), files: files)
    }

    func armStoreCrash(_ point: StoreCrashPoint) async throws -> StoreCrashSupport {
        guard hello.capabilities.contains(.storeCrash) else {
            return .unsupported("the driver \(connection.label) cannot interrupt its token store's writes (no storeCrash capability)")
        }
        let answer = try await connection.ask(what: "question crashStore") { .crashStore(id: $0, point: point.rawValue) }
        guard case .crashStore(_, let armed, let reason) = answer else { throw connection.failure("answered crashStore with \(answer.typeName)", voids: true) }
        return armed ? .armed : .unsupported(reason ?? "the driver did not arm the crash")
    }

    /// Where `path` would lead, for a path whose last components do not exist: the kernel's
    /// answer for the nearest ancestor that does, with the missing names after it. Nil when
    /// no ancestor resolves, or a missing name is `.` or `..` (which would climb back out).
    private static func realPathOfMissing(_ path: String) -> String? {
        var missing: [Substring] = []
        var ancestor = Substring(path)
        while let slash = ancestor.lastIndex(of: "/") {
            let name = ancestor[ancestor.index(after: slash)...]
            guard name != ".", name != ".." else { return nil }
            if !name.isEmpty { missing.insert(name, at: 0) }
            ancestor = ancestor[..<slash]
            if let resolved = realPath(ancestor.isEmpty ? "/" : String(ancestor)) {
                return ([resolved == "/" ? "" : resolved] + missing.map(String.init)).joined(separator: "/")
            }
        }
        return nil
    }

    /// The kernel's answer to where `path` leads, or nil when it leads nowhere.
    private static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    func finish() async -> DriverError? {
        await offThePool { self.connection.finish() }
    }

    func log() async -> [String] {
        connection.log
    }

    func close() async {
        await offThePool { self.connection.stop() }
    }
}

extension DriverMessage {
    /// The message's type as the protocol names it, for errors.
    var typeName: String {
        switch self {
        case .hello: return "hello"
        case .ready: return "ready"
        case .ok: return "ok"
        case .error: return "error"
        case .crashed: return "crashed"
        case .unsupported: return "unsupported"
        case .store: return "store"
        case .storeLocation: return "storeLocation"
        case .crashStore: return "crashStore"
        case .browserOpen: return "browserOpen"
        case .browserDismiss: return "browserDismiss"
        case .wait: return "wait"
        case .fatal: return "fatal"
        }
    }
}

/// Runs `body`, which may block (waiting for a process to exit, for its last stderr), on a
/// thread of its own: never on the cooperative pool, nor on Dispatch's global queues, which
/// on Linux are the same few threads (one per core). A blocked one would stall every other
/// flow and test in the process.
func offThePool<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        onOwnThread("flowcheck driver stop") { continuation.resume(returning: body()) }
    }
}

/// Starts `body` on a new thread.
func onOwnThread(_ name: String, _ body: @escaping @Sendable () -> Void) {
    let thread = Thread { body() }
    thread.name = name
    thread.stackSize = 256 * 1024
    thread.start()
}
