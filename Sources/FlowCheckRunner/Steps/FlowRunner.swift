import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import FlowCheckProviders
import FlowCheckSpec

/// Runs specs through a driver, each flow against its own fake server, several at once.
public struct FlowRunner: Sendable {
    public struct Options: Sendable {
        /// How many flows run at once; defaults to ``defaultConcurrency``. One, whatever it
        /// says, for a driver whose SDK keeps process-wide state (``FlowDriver/sharesProcessState``).
        public var concurrency: Int

        /// Four flows per core: a flow spends much of its time waiting on loopback I/O and
        /// thread hand-offs (its SDK's transport, the fakes' loop). With one per core those
        /// waits left the cores idle a quarter of the time (the committed suite: about 3.5 s at
        /// 2 flows on 2 cores, 2.9 s at 3). Twice the cores and one more was best while the SDK's
        /// transport held the cooperative pool's threads; once it no longer did, 8 beat 5 on 2
        /// cores (release, `flowcheck specs/` alternated ten times each: 2.78 s against 3.08 s,
        /// with less CPU) and 12 or 16 gave nothing more.
        ///
        /// Never more than the descriptors allow: a flow holds a few at once (its fakes'
        /// listeners and connections, its SDK's connections, its store's files), and a run out
        /// of them fails flows for reasons no SDK has. On a machine with many cores and the
        /// common soft limit of 1,024, four per core ran out at 192 flows at once.
        public static var defaultConcurrency: Int {
            defaultConcurrency(cores: ProcessInfo.processInfo.activeProcessorCount, descriptors: DescriptorLimit.soft())
        }

        /// Four per core, within `descriptors` (``descriptorsPerFlow`` each, ``descriptorReserve``
        /// kept for the rest) and the 256 `--jobs` takes; at least one.
        static func defaultConcurrency(cores: Int, descriptors: Int) -> Int {
            max(1, min(4 * max(1, cores), 256, (descriptors - descriptorReserve) / descriptorsPerFlow))
        }

        /// Descriptors counted per flow at once: about 6 on average in the committed suite,
        /// more for a flow with several origins, held requests and a browser.
        static let descriptorsPerFlow = 16
        /// Descriptors kept for what is not a flow (reports, the console, a driver's pipes).
        static let descriptorReserve = 64
        /// Real time a flow may take before it is reported as hung. The clock in flows is
        /// virtual, so a healthy flow never comes near it.
        public var timeLimit: Duration
        /// Decides when a flow has used up `timeLimit`: real time on a thread of its own by
        /// default; tests pass one that fires when the flow under test is known to hang.
        public var watchdog: Watchdog
        /// Told, when each flow ends, of every secret its fake issued (tokens, codes): for
        /// tests that scan the reports for them. Reports never contain them.
        public var issuedSecretsObserver: (@Sendable ([String]) -> Void)?
        /// The providers specs may name: their fakes play the other side.
        public var providers: [any ProviderKit] = ProviderRegistry.kits
        /// The invariants checked after every step of every flow: all of them unless a test
        /// turns some off (to show a defect is caught by an invariant and nothing else).
        public var invariants: Set<Invariant> = Set(Invariant.allCases)
        /// Whether reports mask secrets. Judging never depends on it: a test runs every spec
        /// with masking off and expects the same verdicts.
        public var masking = true

        public init(concurrency: Int = Options.defaultConcurrency, timeLimit: Duration = .seconds(30), watchdog: Watchdog = .realTime) {
            self.concurrency = max(1, concurrency)
            self.timeLimit = timeLimit
            self.watchdog = watchdog
        }
    }

    public let driver: any FlowDriver
    public let options: Options

    public init(driver: any FlowDriver, options: Options = Options()) {
        self.driver = driver
        self.options = options
    }

    /// Runs every spec; results come back in the order of `specs`.
    ///
    /// Cancelling the calling task interrupts the run: no flow starts after that, running
    /// flows are cancelled, and only the flows that finished are returned (a flow cut short is
    /// left out, as if it had not run).
    /// - Parameter onFinish: told of each flow as it finishes (in finishing order), for a live
    ///   console.
    public func run(_ specs: [FlowSpec], onFinish: @Sendable (FlowResult) -> Void = { _ in }) async -> [FlowResult] {
        var results = [FlowResult?](repeating: nil, count: specs.count)
        await drive(specs) { index, result in
            results[index] = result
            onFinish(result)
        }
        return results.compactMap { $0 }
    }

    /// Runs the flows of a sequence that may make them on demand, and hands each result to
    /// `onFinish` without keeping it: for suites too large to hold in memory at once, such as
    /// thousands of generated flows. The sequence is read only as flows finish, so with a lazy
    /// one about `concurrency` specs and results are alive at any time.
    ///
    /// ```swift
    /// await runner.stream((1...10_000).lazy.map(makeSpec)) { result in
    ///     if result.status != .passed { failed += 1 }
    /// }
    /// ```
    /// - Parameters:
    ///   - specs: the flows, read in order, each just before it runs.
    ///   - onFinish: each result, in finishing order.
    public func stream<Specs: Sequence<FlowSpec>>(_ specs: Specs, onFinish: (FlowResult) -> Void) async {
        await drive(specs) { _, result in onFinish(result) }
    }

    /// Keeps `concurrency` flows running until the sequence runs out; `finished` gets each
    /// result with the position of its spec in the sequence.
    private func drive<Specs: Sequence<FlowSpec>>(_ specs: Specs, finished: (Int, FlowResult) -> Void) async {
        // An SDK with process-wide state would hand one flow's tokens and redirects to another.
        let width = driver.sharesProcessState ? 1 : options.concurrency
        await withTaskGroup(of: (Int, FlowResult)?.self) { group in
            var pending = specs.makeIterator()
            var next = 0
            /// Starts the next flow; false when there is none.
            func launch() -> Bool {
                guard !Task.isCancelled, let spec = pending.next() else { return false }
                let index = next
                let flow = execution(of: spec)
                group.addTask {
                    let (result, interrupted) = await flow.run()
                    return interrupted ? nil : (index, result.citing(spec))
                }
                next += 1
                return true
            }
            while next < width, launch() {}
            while let ended = await group.next() {
                if let (index, result) = ended { finished(index, result) }
                _ = launch()
            }
        }
    }

    /// Runs one spec. Cancelled before it finishes, the flow is a harness error saying so.
    public func run(_ spec: FlowSpec) async -> FlowResult {
        await execution(of: spec).run().result.citing(spec)
    }

    private func execution(of spec: FlowSpec) -> FlowExecution {
        FlowExecution(spec: spec, driver: driver, timeLimit: options.timeLimit, watchdog: options.watchdog, issuedSecretsObserver: options.issuedSecretsObserver, providers: options.providers, invariants: options.invariants, masking: options.masking)
    }
}

/// The process's soft limit on open descriptors (`RLIMIT_NOFILE`).
package enum DescriptorLimit {
    /// As it stands.
    package static func soft() -> Int { read(raising: false) }

    /// After raising it toward the hard limit (at most 65,536; macOS refuses more than its
    /// per-process maximum, and then the limit stays as it was).
    package static func raised() -> Int { read(raising: true) }

    private static func read(raising: Bool) -> Int {
        #if canImport(Glibc)
        let resource = Int32(RLIMIT_NOFILE.rawValue)
        #else
        let resource = RLIMIT_NOFILE
        #endif
        var limits = rlimit()
        // Unreadable: assume macOS's usual default, the smallest common one.
        guard getrlimit(resource, &limits) == 0 else { return 256 }
        let wanted = min(limits.rlim_max, 65_536)
        if raising, limits.rlim_cur < wanted {
            var higher = limits
            higher.rlim_cur = wanted
            if setrlimit(resource, &higher) == 0 { limits = higher }
        }
        return Int(min(limits.rlim_cur, rlim_t(Int32.max)))
    }
}
