import Foundation
import FlowCheckTestLanes
import Testing
import FlowCheckCLI
@testable import FlowCheckProcessDriver
import FlowCheckRunner
@testable import FlowCheckReports
import FlowCheckSpec
import FlowCheckFakeServer
import FlowCheckTestSupport
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// SDKs in other languages through the driver protocol (docs/protocol.md): the
/// reference drivers pass every Moltin flow, their one-defect variants fail exactly the flows
/// that defect breaks, and a driver that hangs, dies or writes garbage is a harness error that
/// names it while the other flows run on.
/// Serialized: each test starts dozens of interpreter processes; at once they would starve the
/// rest of the test run on a 2-core machine.
@Suite(.integration, .serialized, .timeLimit(.minutes(20)))
struct ProcessDriverTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let drivers = root.appendingPathComponent("Tests/Drivers").path

    /// Every Moltin flow: the MLT catalogue and the fault flows, which run on Moltin.
    static func moltinSpecs() throws -> [FlowSpec] {
        let specs = try SpecsEarnTheirPlaceTests.specs().filter { $0.provider.rawValue == "moltin" }
        let files = try FileManager.default.contentsOfDirectory(atPath: SpecsEarnTheirPlaceTests.specsFolder + "/moltin").filter { $0.hasSuffix(".json") }
        #expect(specs.filter { $0.id.hasPrefix("MLT-") }.count == files.count, "every file in specs/moltin loaded")
        return specs
    }

    static func run(_ command: String, _ specs: [FlowSpec], deadlines: ProcessDriver.Deadlines = .init(), trace: URL? = nil) async throws -> [String: FlowResult] {
        let driver = try await ProcessDriver.probe(command: command, deadlines: deadlines, traceDirectory: trace)
        let results = await FlowRunner(driver: driver).run(specs)
        return Dictionary(uniqueKeysWithValues: results.map { ($0.id, $0) })
    }

    static let python = "python3 \(drivers)/python/moltin_driver.py"
    static let node = "node \(drivers)/node/moltin-driver.mjs"

    /// Each reference driver passes every Moltin flow; the Python one's traffic, every line
    /// both sides wrote in all of them, is read against the published schema by a validator
    /// that shares nothing with the runner's own message checks.
    @Test(arguments: [python, node])
    func aReferenceDriverPassesEveryMoltinFlow(_ command: String) async throws {
        let specs = try Self.moltinSpecs()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("flowcheck-trace-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let results = try await Self.run(command, specs, trace: command == Self.python ? folder : nil)
        #expect(results.count == specs.count)
        for result in results.values {
            #expect(result.status == .passed, "\(result.id): \(result.status) \(result.failures.map(\.message)) \(result.errorMessage ?? "") \(result.skips.map(\.reason))")
        }
        if command == Self.python { try Self.checkTraffic(in: folder) }
    }

    /// The defects, one small change each, and the flows each must fail (and no other):
    /// - no expiry handling: every flow where the token runs out on the clock and must be
    ///   renewed before use (MLT-STORE-FILES too: its third write is that renewal), or must not
    ///   be sent once expired (MLT-RELAUNCH-EDGE);
    /// - a force-unwrap of the products body: the flows that answer 200 with a body that is
    ///   not JSON (a non-JSON body, a truncated one); the SDK crashes instead of an error.
    static let noExpiryFails: Set = ["MLT-CREDS", "MLT-EXPIRED", "MLT-EXPIRY-EDGE", "MLT-RATELIMIT", "MLT-RELAUNCH-EDGE", "MLT-RENEW-FAULTS", "MLT-SHARED-RENEWAL", "MLT-STORE-CRASH-RENEW", "MLT-STORE-FILES"]
    static let crashFails: Set = ["MLT-NETFAIL", "FLT-TRUNCATED"]

    @Test(arguments: [
        ("python3 \(drivers)/python/broken_no_expiry.py", noExpiryFails, false),
        ("python3 \(drivers)/python/broken_crash.py", crashFails, true),
        ("node \(drivers)/node/broken-no-expiry.mjs", noExpiryFails, false),
        ("node \(drivers)/node/broken-crash.mjs", crashFails, true),
    ])
    func aBrokenReferenceDriverFailsExactlyItsFlows(_ command: String, _ expected: Set<String>, _ crashes: Bool) async throws {
        let results = try await Self.run(command, try Self.moltinSpecs())
        let failed = Set(results.values.filter { $0.status != .passed }.map(\.id))
        #expect(failed == expected, "\(command): \(results.values.filter { $0.status != .passed }.map { "\($0.id) \($0.status) \($0.failures.first?.message ?? $0.errorMessage ?? "")" })")
        for id in expected {
            #expect(results[id]?.status == .failed, "\(id) is a conformance failure, not a harness error: \(results[id]?.errorMessage ?? "")")
            if crashes {
                #expect(results[id]?.failures.contains { $0.actual.contains("crashed") } == true, "\(id): \(results[id]?.failures.map(\.message) ?? [])")
            }
        }
    }

    /// No false failure, in other languages: each conforming variant of a reference driver (one
    /// edit a real client makes and the documents allow, the passage named in its own header)
    /// passes every Moltin flow.
    @Test(arguments: [
        // Spaces in the form as %20 (WHATWG URL 5.1, RFC 3986 2.1).
        "python3 \(drivers)/python/conforming_percent20.py",
        // application/x-www-form-urlencoded; charset=UTF-8 (RFC 9110 8.3).
        "python3 \(drivers)/python/conforming_charset.py",
        // Connection: close on every request (RFC 9112 9.6).
        "python3 \(drivers)/python/conforming_connection_close.py",
        // Header names in lower case (RFC 9110 5.1).
        "python3 \(drivers)/python/conforming_lowercase_headers.py",
        // Renewal 5 minutes before expiry (seed 003 fixes no margin).
        "python3 \(drivers)/python/conforming_margin_300.py",
        // The token file 0400 (RFC 6819 5.3.3: owner-only).
        "python3 \(drivers)/python/conforming_owner_read_only.py",
        // Waits out a Retry-After through the protocol's `wait` and asks once more (RFC 9110 §10.2.3).
        "python3 \(drivers)/python/conforming_retry_after.py",
        // Delete Token removes the store's folder itself; the next save makes it again (MLT-DELETE).
        "python3 \(drivers)/python/conforming_store_folder_removed.py",
        // Authorization: bearer <token> (RFC 9110 11.1).
        "node \(drivers)/node/conforming-bearer-lowercase.mjs",
        // Renewal at expiry, no margin (seed 003).
        "node \(drivers)/node/conforming-margin-zero.mjs",
        // The form's fields last to first (WHATWG URL 5.1).
        "node \(drivers)/node/conforming-field-order.mjs",
        // grant_type=implicit (seed 003: "the implicit value should be used").
        "node \(drivers)/node/conforming-implicit-grant.mjs",
        // An empty 0600 lock file beside the token file (the store's guarantees hold).
        "node \(drivers)/node/conforming-lock-file.mjs",
    ])
    func aConformingReferenceDriverPassesEveryMoltinFlow(_ command: String) async throws {
        let specs = try Self.moltinSpecs()
        let results = try await Self.run(command, specs)
        #expect(results.count == specs.count)
        for result in results.values where result.status != .passed {
            Issue.record("\(command): \(result.id) \(result.status) \(result.failures.map(\.message)) \(result.errorMessage ?? "") \(result.skips.map(\.reason))")
        }
    }

    /// Hanging, dying and writing garbage in one flow: that flow is a harness error naming the
    /// driver and its command, with its last stderr lines; the flow before it passes.
    @Test(arguments: [
        ("hang", "did not answer call auth (id 1) within 2 s"),
        ("exit", "exited with status 3 while the runner awaited its answer to call auth (id 1)"),
        ("garbage", "wrote a line that is not a protocol message"),
        ("huge", "wrote a line longer than 1 MiB"),
        ("dupkey", "the key \"result\" appears twice in one object"),
        // It exits while a grandchild of another session holds its stdout open: the exit is
        // seen when it happens, not when the pipe closes.
        ("holdout", "exited with status 0 while the runner awaited its answer to call auth (id 1)"),
    ])
    func aMisbehavingDriverIsANamedHarnessError(_ mode: String, _ what: String) async throws {
        let command = "python3 \(Self.drivers)/misbehaving/misbehaving.py \(mode) MLT-PRODUCTS"
        let specs = try SpecsEarnTheirPlaceTests.specs().filter { ["MLT-AUTH", "MLT-PRODUCTS", "MLT-REFRESH"].contains($0.id) }
        // Only the hang's answer deadline is short: the flows that must pass keep the defaults.
        let results = try await Self.run(command, specs, deadlines: mode == "hang" ? .init(answer: .seconds(2)) : .init())
        #expect(results["MLT-AUTH"]?.status == .passed)
        #expect(results["MLT-REFRESH"]?.status == .passed)
        let broken = try #require(results["MLT-PRODUCTS"])
        #expect(broken.status == .error)
        // The driver protocol's, in the step it broke in.
        #expect(broken.harnessError?.party == .driverProtocol)
        #expect(broken.harnessError?.place?.step == 1, "\(broken.errorMessage ?? "")")
        let message = broken.errorMessage ?? ""
        #expect(message.contains("driver misbehaving-\(mode) 1.0.0 (\(command))"), "\(message)")
        #expect(message.contains(what), "\(message)")
        #expect(message.contains("misbehaving: \(mode) in MLT-PRODUCTS at call auth"), "its stderr: \(message)")
        // Its stderr is kept in the transcript too.
        #expect(broken.transcript.last?.hasPrefix("driver log (stderr):") == true)
    }

    /// A driver's `wait` lets the flow's clock pass within its step (the Retry-After variant
    /// above passes every flow that way); a wait beyond the step's budget is refused with a
    /// `clock` message that names it, and the step fails as the SDK's own hang, not the driver's.
    @Test func aWaitBeyondTheStepsBudgetIsRefusedAndFailsTheStep() async throws {
        let command = "python3 \(Self.drivers)/misbehaving/misbehaving.py longwait MLT-PRODUCTS"
        let specs = try SpecsEarnTheirPlaceTests.specs().filter { $0.id == "MLT-PRODUCTS" }
        let result = try #require(try await Self.run(command, specs)["MLT-PRODUCTS"])
        #expect(result.status == .failed, "\(result.errorMessage ?? "")")
        let failure = try #require(result.failures.first)
        #expect(failure.check == "wait")
        #expect(failure.step == 1)
        #expect(failure.actual.contains("7200 s"), "\(failure.actual)")
        // The driver read the refusal and answered: its call ended, nothing hung.
        #expect(result.failures.contains { $0.actual.contains("the 2-hour wait was refused") })
    }

    /// A store folder other than the one `start` gave (a tidy decoy beside a leaky real store)
    /// is refused, never measured.
    @Test func aStoreFolderOtherThanTheOneGivenIsRefused() async throws {
        let specs = try SpecsEarnTheirPlaceTests.specs().filter { $0.id == "MLT-STORE-FILES" }
        let results = try await Self.run("python3 \(Self.drivers)/misbehaving/misbehaving.py decoy MLT-STORE-FILES", specs)
        #expect(results["MLT-STORE-FILES"]?.status == .error)
        #expect(results["MLT-STORE-FILES"]?.errorMessage?.contains("which is not the storageDirectory it was given") == true, "\(results["MLT-STORE-FILES"]?.errorMessage ?? "")")
    }

    /// A folder inside the given one that leads elsewhere through a long chain of symlinks
    /// (past what Foundation's resolver follows) is refused by the kernel's answer.
    @Test func aSymlinkChainOutOfTheStoreFolderIsRefused() async throws {
        let specs = try SpecsEarnTheirPlaceTests.specs().filter { $0.id == "MLT-STORE-FILES" }
        let results = try await Self.run("python3 \(Self.drivers)/misbehaving/misbehaving.py chain MLT-STORE-FILES", specs)
        #expect(results["MLT-STORE-FILES"]?.status == .error)
        #expect(results["MLT-STORE-FILES"]?.errorMessage?.contains("nor a folder inside it") == true, "\(results["MLT-STORE-FILES"]?.errorMessage ?? "")")
    }

    /// A line that breaks the protocol after the last question, on its way out, still makes the
    /// flow a harness error, every time.
    @Test(arguments: 1...3)
    func lastWordsThatAreNotProtocolAreAHarnessError(_ run: Int) async throws {
        let specs = try SpecsEarnTheirPlaceTests.specs().filter { $0.id == "MLT-AUTH" }
        let results = try await Self.run("python3 \(Self.drivers)/misbehaving/misbehaving.py lastwords MLT-AUTH", specs)
        #expect(results["MLT-AUTH"]?.status == .error)
        #expect(results["MLT-AUTH"]?.errorMessage?.contains("wrote a line that is not a protocol message") == true, "\(results["MLT-AUTH"]?.errorMessage ?? "")")
    }

    /// A client secret logged in HTTP Basic form never reaches a report, and a long log line is
    /// cut at a space, never through a value.
    @Test func basicCredentialsInTheLogAreMaskedAndLongLinesCutAtASpace() {
        let logged = DriverConnection.maskingBasicCredentials("> Authorization: Basic c3RvcmUtMTpzay03SHEydlg5cEw0 and basic=dXNlcjpwYXNzd29yZA== ok")
        #expect(!logged.contains("c3RvcmUtMTpzay03SHEydlg5cEw0") && !logged.contains("dXNlcjpwYXNzd29yZA=="), "\(logged)")
        #expect(logged.hasSuffix(" ok"))
        #expect(DriverConnection.maskingBasicCredentials("basic auth is off") == "basic auth is off")
        let long = String(repeating: "word ", count: 90) + "sk-SECRET-" + String(repeating: "x", count: 200)
        let kept = DriverConnection.kept(long)
        #expect(!kept.contains("sk-SECRET"), "\(kept)")
        #expect(DriverConnection.kept(String(repeating: "y", count: 600)).hasPrefix("(a line of 600 characters"))
    }

    /// What a skeleton passes as it stands: MLT-AUTH, its derived `answer` variants (garbled and
    /// reshaped answers, `expires_in` alone and no expiry among them), MLT-BADAUTH (the
    /// server's own message with `tokenEndpoint`) and MLT-NETFAIL (`transport`, `serverError`,
    /// `invalidResponse`), so its error mapping and expiry reading stay fixed.
    static func skeletonSpecs() throws -> [FlowSpec] {
        let (specs, variants) = try DerivedVariantsTests.derived()
        let answers = variants.filter { $0.derivation?.parent == "MLT-AUTH" && $0.derivation?.family == .answer }
        #expect(["withoutExpires", "withoutExpiry"].allSatisfy { shape in answers.contains { $0.id.hasSuffix(shape) } }, "\(answers.map(\.id))")
        return specs.filter { ["MLT-AUTH", "MLT-BADAUTH", "MLT-NETFAIL"].contains($0.id) } + answers
    }

    /// Runs `command` through ``skeletonSpecs()`` and expects every one passed.
    static func expectSkeletonPasses(_ command: String) async throws {
        let specs = try skeletonSpecs()
        let results = try await run(command, specs)
        #expect(results.count == specs.count)
        for spec in specs {
            let result = results[spec.id]
            #expect(result?.status == .passed, "\(spec.id): \(result.map { "\($0.status) \($0.failures.map(\.message)) \($0.errorMessage ?? "")" } ?? "no result")")
        }
    }

    /// The quick start's Python skeleton (README, "Quick start") passes ``skeletonSpecs()``
    /// as it stands, so the steps a newcomer follows end in a pass.
    @Test func theQuickStartSkeletonPassesMLTAuth() async throws {
        try await Self.expectSkeletonPasses("python3 \(Self.root.path)/examples/drivers/python/driver.py")
    }

    /// The Node skeleton (examples/drivers/node/README.md) passes ``skeletonSpecs()`` as it stands.
    @Test func theNodeQuickStartSkeletonPassesMLTAuth() async throws {
        try await Self.expectSkeletonPasses("node \(Self.root.path)/examples/drivers/node/driver.mjs")
    }

    /// The Swift skeleton (examples/drivers/swift/README.md), built as a team builds it (its own
    /// package, into a scratch folder so the checkout stays clean), passes ``skeletonSpecs()``
    /// as it stands. It builds a package (10 to 40 s here, on both cores), so it runs when
    /// `FLOWCHECK_SWIFT_SKELETON=1` (`.ci/run` sets it in a step of its own, after `swift test`).
    @Test(.enabled(if: ProcessInfo.processInfo.environment["FLOWCHECK_SWIFT_SKELETON"] == "1", "builds a package: FLOWCHECK_SWIFT_SKELETON=1 (CI sets it)"))
    func theSwiftQuickStartSkeletonBuildsAndPassesMLTAuth() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("flowcheck-swift-skeleton-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let scratch = folder.appendingPathComponent("build")
        let package = Self.root.appendingPathComponent("examples/drivers/swift")
        // TMPDIR: SwiftPM's lock files for the scratch path go there, and go with the folder.
        var environment = ProcessInfo.processInfo.environment
        environment["TMPDIR"] = folder.path
        let (status, output) = try await Self.runToEnd("swift build (examples/drivers/swift)", ["swift", "build", "--package-path", package.path, "--scratch-path", scratch.path], environment: environment, within: .seconds(600))
        try #require(status == 0, "swift build: exit \(status)\n\(output.suffix(3000))")
        try await Self.expectSkeletonPasses("'\(scratch.path)/debug/my-sdk-driver'")
    }

    /// Runs `command` (found on PATH) to its end: its exit status and its output, stdout and
    /// stderr together. Killed when `limit` passes, and then this throws ``WaitTimedOut``
    /// (only the child: a compiler it started finishes on its own).
    /// - Parameter environment: the child's whole environment; nil inherits this process's.
    static func runToEnd(_ what: String, _ command: [String], environment: [String: String]? = nil, within limit: Duration) async throws -> (status: Int32, output: String) {
        // /bin/sh joins stderr to stdout, so one pipe read to its end cannot block the child.
        let child = try Spawned(executable: "/bin/sh", arguments: ["-c", "exec \"$@\" 2>&1", "sh"] + command, environment: environment)
        close(child.stderr)
        let reaped = Locked(false)
        do {
            return try await offThePool(what, within: limit) {
                let output = FileHandle(fileDescriptor: child.stdout, closeOnDealloc: true).readDataToEndOfFile()
                // Waits for the exit without reaping, so a kill at the deadline never reaches a
                // reused pid: the reap happens under the lock the kill takes.
                var info = siginfo_t()
                _ = waitid(P_PID, id_t(child.pid), &info, WEXITED | WNOWAIT)
                let status = reaped.withLock { reaped in
                    reaped = true
                    return child.waitForExit()
                }
                return (status, String(decoding: output, as: UTF8.self))
            }
        } catch {
            reaped.withLock { if !$0 { child.signal(SIGKILL) } }
            throw error
        }
    }

    /// A driver that floods the runner with events during one call breaks the protocol once
    /// past the cap, and the report stays small (it once kept 200,000 of them: 166 MB).
    @Test func aFloodOfBrowserEventsIsAProtocolBreak() async throws {
        let specs = try SpecsEarnTheirPlaceTests.specs().filter { $0.id == "MLT-AUTH" }
        let results = try await Self.run("python3 \(Self.drivers)/misbehaving/misbehaving.py flood MLT-AUTH", specs)
        let result = try #require(results["MLT-AUTH"])
        #expect(result.status == .error)
        #expect(result.errorMessage?.contains("sent more than \(DriverConnection.eventsPerCall) browser events and waits during one call") == true, "\(result.errorMessage ?? "")")
        #expect(result.events.count <= DriverConnection.eventsPerCall + 10, "\(result.events.count) events kept")
    }

    /// A driver that does not exit on stop costs its flow: a harness error, its group killed.
    @Test func aDriverThatIgnoresStopIsAHarnessError() async throws {
        let specs = try SpecsEarnTheirPlaceTests.specs().filter { $0.id == "MLT-AUTH" }
        let results = try await Self.run("python3 \(Self.drivers)/misbehaving/misbehaving.py ignorestop -", specs, deadlines: .init(exit: .seconds(1)))
        #expect(results["MLT-AUTH"]?.status == .error)
        #expect(results["MLT-AUTH"]?.errorMessage?.contains("did not exit within 1 s of stop; its process group was killed") == true, "\(results["MLT-AUTH"]?.errorMessage ?? "")")
    }

    /// An answer sent before its question is never a pass it did not earn.
    @Test func anAnswerBeforeItsQuestionIsNeverAPass() async throws {
        let specs = try SpecsEarnTheirPlaceTests.specs().filter { $0.id == "MLT-AUTH" }
        let results = try await Self.run("python3 \(Self.drivers)/misbehaving/misbehaving.py early MLT-AUTH", specs)
        let status = try #require(results["MLT-AUTH"]?.status)
        #expect(status == .error || status == .failed)
    }

    /// Without the fileStore capability the flows that check the store's files are not run
    /// (never "passed with skips"), and the others run.
    @Test func flowsThatCheckStoreFilesAreNotRunWithoutAFileStore() async throws {
        let specs = try Self.moltinSpecs().filter { ["MLT-STORE-FILES", "MLT-STORE-CRASH", "MLT-AUTH", "MLT-REFRESH"].contains($0.id) }
        #expect(specs.count == 4)
        let results = try await Self.run("python3 \(Self.drivers)/misbehaving/misbehaving.py nofilestore -", specs)
        #expect(results["MLT-STORE-FILES"]?.status == .skipped)
        #expect(results["MLT-STORE-FILES"]?.skips.first?.reason.contains("no fileStore capability") == true)
        #expect(results["MLT-AUTH"]?.status == .passed)
        #expect(!results.values.contains { $0.status == .passedWithSkips })
    }

    @Test func aDriverThatNeverSaysHelloIsNamedWithinTheDeadline() async throws {
        let command = "python3 \(Self.drivers)/misbehaving/misbehaving.py silent -"
        await #expect {
            _ = try await ProcessDriver.probe(command: command, deadlines: .init(hello: .seconds(2)))
        } throws: { error in
            "\(error)".contains("driver (\(command)) did not send hello within 2 s") && "\(error)".contains("misbehaving: loading forever")
        }
    }

    @Test func anotherProtocolVersionIsRefusedNamingBoth() async throws {
        await #expect {
            _ = try await ProcessDriver.probe(command: "python3 \(Self.drivers)/misbehaving/misbehaving.py version -")
        } throws: { error in
            "\(error)".contains("the driver speaks protocol 2; this runner speaks 1")
        }
    }

    /// A driver that cannot inject time: every flow that moves the clock is not run, with the
    /// reason; every other flow runs and passes.
    @Test func flowsThatMoveTheClockAreNotRunWithoutAVirtualClock() async throws {
        // A few of each kind: the rule is per flow, and every interpreter start costs the
        // machine the other tests share.
        let specs = try Self.moltinSpecs().filter { ["MLT-AUTH", "MLT-PRODUCTS", "MLT-EXPIRED", "MLT-EXPIRY-EDGE", "FLT-STALL", "FLT-RESET"].contains($0.id) }
        #expect(specs.count == 6)
        let results = try await Self.run("python3 \(Self.drivers)/misbehaving/misbehaving.py noclock -", specs)
        for spec in specs {
            let movesClock = spec.steps.contains { step in
                switch step.action {
                case .advanceClock?: return true
                case .fault(let fault)?: return fault.clockAdvance != nil
                default: return false
                }
            }
            let result = try #require(results[spec.id])
            if movesClock {
                #expect(result.status == .skipped, "\(spec.id)")
                #expect(result.skips.first?.reason.contains("cannot inject time (no virtualClock capability)") == true)
            } else {
                #expect(result.status == .passed, "\(spec.id): \(result.status)")
            }
        }
        #expect(results.values.contains { $0.status == .skipped } && results.values.contains { $0.status == .passed })
        // Every output groups them by the capability missing, whichever step needs it.
        let groups = MarkdownReport.notRunGroups(specs.compactMap { results[$0.id] })
        #expect(groups.count == 1, "\(groups)")
        #expect(groups.first?.ids.count == results.values.filter { $0.status == .skipped }.count)
    }

    /// A provider the driver does not speak is not run, never an error or a pass.
    @Test func anotherProvidersFlowsAreNotRun() async throws {
        let clover = try #require(try SpecsEarnTheirPlaceTests.specs().first { $0.provider.rawValue == "clover" })
        let results = try await Self.run(Self.python, [clover])
        #expect(results[clover.id]?.status == .skipped)
        #expect(results[clover.id]?.skips.first?.reason == "the driver moltin-python 1.0.0 does not speak clover (it speaks moltin)")
    }

    /// Every line of a recorded run against the published schema.
    static func checkTraffic(in folder: URL) throws {
        let schema = try MiniJSONSchema(data: Data(contentsOf: URL(fileURLWithPath: Self.drivers + "/protocol.schema.json")))
        var types: [String: Set<String>] = ["driver": [], "runner": []]
        var lines = 0
        for file in try FileManager.default.contentsOfDirectory(atPath: folder.path) {
            let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
            for entry in text.split(separator: "\n") {
                let record = try #require(try JSONSerialization.jsonObject(with: Data(entry.utf8)) as? [String: String])
                let to = try #require(record["to"]), line = try #require(record["line"])
                let message = try JSONSerialization.jsonObject(with: Data(line.utf8))
                let errors = schema.errors(message, against: to == "driver" ? "#/$defs/toDriver" : "#/$defs/fromDriver")
                #expect(errors.isEmpty, "\(file): \(line): \(errors)")
                types[to, default: []].insert((message as? [String: Any])?["type"] as? String ?? "")
                lines += 1
            }
        }
        #expect(lines > 100)
        // Every message type was exercised; `fatal`, `crashed`, `unsupported` and the browser
        // events are not in a passing Moltin run, and are checked by the schema tests.
        #expect(types["driver"] == Set(RunnerMessage.types), "\(types["driver"] ?? [])")
        #expect(types["runner"]?.isSuperset(of: ["hello", "ready", "ok", "error", "store", "storeLocation", "crashStore"]) == true, "\(types["runner"] ?? [])")
    }

    /// The schema and the runner's message checks know the same message types.
    @Test func theSchemaNamesEveryMessageTheRunnerKnows() throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: Self.drivers + "/protocol.schema.json"))
        let root = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let defs = try #require(root["$defs"] as? [String: Any])
        func types(_ side: String) throws -> Set<String> {
            let list = try #require((defs[side] as? [String: Any])?["oneOf"] as? [[String: String]])
            return Set(try list.map { reference in
                let name = try #require(reference["$ref"]?.split(separator: "/").last.map(String.init))
                let properties = try #require((defs[name] as? [String: Any])?["properties"] as? [String: Any])
                return try #require((properties["type"] as? [String: Any])?["const"] as? String)
            })
        }
        #expect(try types("fromDriver") == Set(DriverMessage.types))
        #expect(try types("toDriver") == Set(RunnerMessage.types))
    }

    /// The runner's strict reading refuses what the schema refuses.
    @Test(arguments: [
        #"{"type":"ok","id":1,"result":{"n":2}}"#,
        #"{"type":"ok","id":0,"result":{}}"#,
        #"{"type":"ok","id":1,"result":{},"extra":1}"#,
        #"{"type":"error","id":1,"kind":"oops","message":"m"}"#,
        #"{"type":"crashStore","id":1,"armed":false}"#,
        #"{"type":"hello","protocol":1,"driver":{"name":"x","version":"1"},"providers":{},"capabilities":[]}"#,
        #"{"type":"hello","protocol":1,"driver":{"name":"x","version":"1"},"providers":{"moltin":[]},"capabilities":["teleport"]}"#,
        #"{"type":"browserOpen"}"#,
        #"{"type":"ready","id":true}"#,
        #"["ok"]"#,
    ])
    func aMessageTheSchemaRefusesIsRefused(_ line: String) throws {
        #expect(throws: DriverMessage.Invalid.self) { try DriverMessage.parse(line) }
        let schema = try MiniJSONSchema(data: Data(contentsOf: URL(fileURLWithPath: Self.drivers + "/protocol.schema.json")))
        let value = try JSONSerialization.jsonObject(with: Data(line.utf8), options: [.fragmentsAllowed])
        #expect(!schema.errors(value, against: "#/$defs/fromDriver").isEmpty)
    }

    /// Through the command line: the same console and exit codes as the built-in driver, and a
    /// run in which the driver could run nothing exits 2, never 0.
    @Test func theCommandLineRunsADriverAndRefusesARunOfNothing() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("flowcheck-cli-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let lines = LockedLines()
        let console = FlowCheckCommand.Console(out: { lines.add($0) }, err: { lines.add($0) })
        let common = ["--driver", Self.python, "--junit", folder.path + "/j.xml", "--markdown", folder.path + "/m.md"]
        let passed = await FlowCheckCommand().run(common + ["--filter", "^MLT-(AUTH|PRODUCTS)$", SpecsEarnTheirPlaceTests.specsFolder], console: console)
        #expect(passed == .passed, "\(lines.all)")
        // The two flows and the variants derived from them, all passed; the other flows left out.
        let others = try SpecsEarnTheirPlaceTests.specs().count - 2
        #expect(lines.all.contains { $0.hasSuffix("passed)") && $0.contains(" passed, 0 failed, \(others) left out by --filter (") })
        let nothing = await FlowCheckCommand().run(common + ["--filter", "^CLV-FULL-1$", SpecsEarnTheirPlaceTests.specsFolder], console: console)
        #expect(nothing == .usageOrInvalidSpec)
        #expect(lines.all.contains { $0.contains("can run none of the") && $0.contains("selected flows") })
        let missing = await FlowCheckCommand().run(["--driver", "/nonexistent/driver --x", "--junit", folder.path + "/j.xml", "--markdown", folder.path + "/m.md", SpecsEarnTheirPlaceTests.specsFolder], console: console)
        #expect(missing == .harnessFailure)
        #expect(lines.all.contains { $0.contains("/nonexistent/driver") && $0.contains("exited with status 127 before it sent hello") })
    }
}

extension ProcessDriverTests {
    /// The matrix: every driver's column, one that does not start included (its flows are
    /// harness errors saying why), written as Markdown and JSON, exit 0.
    @Test func theMatrixKeepsEveryColumnEvenOneThatDoesNotStart() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("flowcheck-matrix-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let lines = LockedLines()
        let console = FlowCheckCommand.Console(out: { lines.add($0) }, err: { lines.add($0) })
        let code = await FlowCheckCommand().run([
            "matrix", "--driver", "core=builtin:core", "--driver", "py=\(Self.python)", "--driver", "bad=true",
            "--markdown", folder.path + "/m.md", "--json", folder.path + "/m.json", "--filter", "^(MLT-AUTH|CLV-FULL-1)$", SpecsEarnTheirPlaceTests.specsFolder,
        ], console: console)
        #expect(code == .passed, "\(lines.all)")
        let markdown = try String(contentsOf: folder.appendingPathComponent("m.md"), encoding: .utf8)
        #expect(markdown.contains("| `MLT-AUTH` | ✅ | ✅ | ⚠️ error "), "\(markdown)")
        #expect(markdown.contains("| `CLV-FULL-1` | ✅ | — | ⚠️ error "), "\(markdown)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: folder.appendingPathComponent("m.json"))) as? [String: Any])
        let flows = try #require(json["flows"] as? [[String: Any]])
        let auth = try #require(flows.first { $0["id"] as? String == "MLT-AUTH" }?["results"] as? [String: [String: String]])
        #expect(auth["core"]?["status"] == "passed" && auth["py"]?["status"] == "passed" && auth["bad"]?["status"] == "error")
        #expect(auth["bad"]?["reason"]?.contains("exited with status 0 before it sent hello") == true, "\(auth["bad"] ?? [:])")
    }
}

final class LockedLines: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []
    func add(_ line: String) { lock.withLock { lines.append(line) } }
    var all: [String] { lock.withLock { lines } }
}
