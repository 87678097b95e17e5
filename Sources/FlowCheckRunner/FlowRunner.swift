import Foundation
import FlowCheckSpec

/// Runs specs through a driver, each flow against its own fake server, several at once.
public struct FlowRunner: Sendable {
    /// Waits out a flow's real-time limit. The default sleeps; tests pass one that returns
    /// when the flow under test is known to hang, so no test depends on real time.
    public typealias Watchdog = @Sendable (Duration) async -> Void

    public struct Options: Sendable {
        /// How many flows run at once; defaults to the machine's core count.
        public var concurrency: Int
        /// Real time a flow may take before it is reported as hung. The clock in flows is
        /// virtual, so a healthy flow never comes near it.
        public var timeLimit: Duration
        public var watchdog: Watchdog
        /// Told, when each flow ends, of every secret its fake issued (tokens, codes): for
        /// tests that scan the reports for them. Reports never contain them.
        public var issuedSecretsObserver: (@Sendable ([String]) -> Void)?

        public init(concurrency: Int = ProcessInfo.processInfo.activeProcessorCount, timeLimit: Duration = .seconds(30), watchdog: @escaping Watchdog = { try? await Task.sleep(for: $0) }) {
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
    /// - Parameter onFinish: told of each flow as it finishes (in finishing order), for a live
    ///   console.
    public func run(_ specs: [FlowSpec], onFinish: @Sendable (FlowResult) -> Void = { _ in }) async -> [FlowResult] {
        await withTaskGroup(of: (Int, FlowResult).self) { group in
            var results = [FlowResult?](repeating: nil, count: specs.count)
            var next = 0
            func launch() {
                let index = next
                let execution = FlowExecution(spec: specs[index], driver: driver, timeLimit: options.timeLimit, watchdog: options.watchdog, issuedSecretsObserver: options.issuedSecretsObserver)
                group.addTask { (index, await execution.run()) }
                next += 1
            }
            while next < specs.count && next < options.concurrency { launch() }
            while let (index, result) = await group.next() {
                results[index] = result
                onFinish(result)
                if next < specs.count { launch() }
            }
            return results.compactMap { $0 }
        }
    }

    /// Runs one spec.
    public func run(_ spec: FlowSpec) async -> FlowResult {
        await FlowExecution(spec: spec, driver: driver, timeLimit: options.timeLimit, watchdog: options.watchdog, issuedSecretsObserver: options.issuedSecretsObserver).run()
    }
}
