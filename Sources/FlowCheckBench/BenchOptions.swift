/// What to measure and how much of it, from the command line.
struct BenchOptions: Equatable {
    enum Part: String, CaseIterable {
        case suite, flows, requests
        /// `serve` for the long run; a minute and more, so only when asked for.
        case serveSoak = "serve-soak"
        /// The driver protocol's cost per flow against the in-process driver; only when named.
        case driverOverhead = "driver-overhead"
        /// `flowcheck explore --seed 1 --runs 2000` over every model; only when named.
        case explore
        /// `flowcheck specs/` as a process, as a user runs it; only when named.
        case command
        /// serve's host beside 500 hostile connections (issue 24); only when named.
        case hostile
        /// The generated flow's requests through the SDK's transport alone; only when named.
        case transport
        /// The generated flow's three calls through the SDK alone (its transport and file
        /// store, no harness); only when named.
        case sdk

        /// What runs when no part is named.
        static let defaults: Set<Part> = [.suite, .flows, .requests]
    }

    var help = false
    /// Also print the CPU time behind each figure (steadier than wall time on a busy machine).
    var cpu = false
    /// The benchmarks to run (all by default); `--only` narrows them, e.g. for a profiler.
    var parts: Set<Part> = Part.defaults
    /// The committed suite, relative to the current directory (the package root under `swift run`).
    var specsDirectory = "specs"
    /// Timed suite runs (after one warm-up); the best is reported.
    var suiteRuns = 3
    /// Generated-flow counts, measured in this order; two of them show whether cost is linear.
    var flowCounts = [1_000, 10_000]
    /// Flows at once for `flows/s` and the suite; nil for the runner's default (four times the cores).
    var jobs: Int?
    /// `req/s` against the bare HTTP layer instead of the fake Moltin.
    var trivialResponder = false
    /// Client connections for the HTTP load, each on its own thread.
    var connections = 4
    /// Requests for the HTTP load, spread evenly over the connections.
    var requests = 20_000
    /// serve-soak: tokens issued before the second throughput figure.
    var soakTokens = 10_000
    /// serve-soak: seconds of load before the first memory reading, and in all.
    var soakBaselineSeconds: Double = 60
    var soakSeconds: Double = 600
    /// driver-overhead: the driver processes to time, each a shell command.
    var driverCommands = ["python3 Tests/Drivers/python/moltin_driver.py", "node Tests/Drivers/node/moltin-driver.mjs"]

    /// Sizes for a CI smoke run: the same figures, each in a few seconds.
    static let quick = BenchOptions(suiteRuns: 1, flowCounts: [100, 1_000], requests: 2_000)

    static let usage = """
        usage: flowcheck-bench [options]
               flowcheck-bench serve-soak [--tokens N] [--baseline-seconds S] [--soak-seconds S]
               flowcheck-bench hostile
               flowcheck-bench driver-overhead [--driver COMMAND]...

        Run from the package root (`swift run -c release flowcheck-bench`). Prints one figure per line:
          suite        load DIR (default specs/), run every flow with the SDK core driver and render
                       both reports in memory; best of 3 runs after one warm-up; exit 1 unless every
                       flow passes
          flows/s      N generated Moltin flows (auth, refresh, products: issue 24's three-request
                       flow, with request checks), N = 1000 and
                       10000, to show whether the cost per flow stays flat; streamed through the
                       runner (each spec loaded from text as it starts, each result checked and
                       dropped), so peak memory shows what a flow costs, not what a caller keeps;
                       then the marginal cost of one more flow between each two counts
                       (`--only flows --flows 100,1000 --cpu` for issue 24's figure)
          req/s        the fake Moltin on loopback, 4 keep-alive connections of a raw-socket client,
                       one request in flight per connection; p50 and p99 latency per request
          peak memory  VmHWM of this process
          serve-soak   (only when named) serve's host with every default provider, its log
                       through a LogQueue: req/s on a fresh host and after N tokens issued
                       (N = 10000; must stay within 20%), and resident memory growth from
                       minute 1 to minute 10 of every provider's whole flow, again and again
                       (must stay within 20 MiB); exit 1 if either fails
          command      (only when named: --only command) `flowcheck DIR/` as a user runs it: the
                       flowcheck beside this benchmark (build both: swift build -c release), its
                       reports at their default paths over the previous run's; best and worst
                       of 3 after one warm-up; exit 1 unless it exits 0 (issue 22's target:
                       under 3 s)
          explore      (only when named: --only explore) flowcheck explore --seed 1 --runs 2000
                       over every model against the SDK core (issue 23's target: under 60 s);
                       exit 1 if it finds anything
          hostile      (only when named) serve's host with 500 connections held open on Moltin's
                       port (idle, slow head, slow body, slow reader, a quarter each) while a
                       normal client asks 1000 times on new connections: the share answered 200
                       within 1 s (issue 24: at least 99%); exit 1 if under
          transport    (only when named: --only transport) the generated flow's three requests
                       through the SDK's URLSessionTransport alone (a fresh one per flow, as the
                       core driver makes), against one fake Moltin in process, as many at once
                       as the runner runs; at each --flows count, and the marginal cost per flow
                       between them: the floor under the flows figure, what no harness work can
                       take off (`--only transport --flows 100,1000 --cpu`)
          sdk          (only when named: --only sdk) the same three steps as an app makes
                       them: MoltinClient's auth, refreshToken and products, over a fresh
                       URLSessionTransport and a FileTokenStore in a folder of the flow's own;
                       the SDK's own JSON reading and token saves added to the transport floor
          driver-overhead
                       (only when named) every Moltin flow in DIR, one at a time, in process with
                       the SDK core and through each reference driver process (flowcheck
                       --driver); wall ms per flow (best of 3), and a driver's start + hello +
                       stop alone; exit 1 unless every flow passes with every driver

          --cpu         also print the CPU time behind each figure: steadier than wall time
                        when other processes share the machine
          --quick       smaller N (suite once, 100 and 1000 flows, 2000 requests) for CI smoke runs
          --specs DIR   the suite to time (default: specs)
          --only PART   run only suite, flows, requests, command, explore, transport or sdk (repeatable), e.g. under a profiler;
                        peak memory is always printed
          --flows N     generated-flow counts instead, comma-separated (e.g. 200 under callgrind)
          --requests N  request count instead
          --jobs N      flows at once for flows/s and the suite (default: the runner's, 4 x cores)
          --trivial-responder
                        req/s against HTTPServer with a one-line responder instead of the fake
                        Moltin, to tell the HTTP layer's cost from the provider's
          --tokens N    serve-soak: tokens issued before the second req/s (default: 10000)
          --baseline-seconds S, --soak-seconds S
                        serve-soak: when memory is read (default: 60 and 600)
          --driver CMD  driver-overhead: a driver process to time instead of the two reference
                        drivers (repeatable)
          -h, --help    show this help

        Exit codes: 0 measured, 1 a flow failed, 2 usage or invalid spec, 3 the harness failed.
        """

    /// - Throws: ``BenchError`` for an unknown flag or a missing value.
    static func parse(_ arguments: [String]) throws(BenchError) -> BenchOptions {
        var options = BenchOptions()
        var quick = false
        var specs: String?
        var only: Set<Part> = []
        var driverGiven = false
        var flows: [Int]?
        var requests: Int?
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            switch argument {
            case "-h", "--help": options.help = true
            case "serve-soak": only.insert(.serveSoak)
            case "hostile": only.insert(.hostile)
            case "driver-overhead": only.insert(.driverOverhead)
            case "--driver":
                guard let value = rest.popFirst(), !value.isEmpty else { throw .usage("--driver needs a command") }
                if !driverGiven { options.driverCommands = [] }
                driverGiven = true
                options.driverCommands.append(value)
            case "--tokens":
                guard let value = rest.popFirst().flatMap({ Int($0) }), value > 0 else { throw .usage("--tokens needs a count") }
                options.soakTokens = value
            case "--baseline-seconds":
                guard let value = rest.popFirst().flatMap({ Double($0) }), value > 0 else { throw .usage("--baseline-seconds needs seconds") }
                options.soakBaselineSeconds = value
            case "--soak-seconds":
                guard let value = rest.popFirst().flatMap({ Double($0) }), value > 0 else { throw .usage("--soak-seconds needs seconds") }
                options.soakSeconds = value
            case "--quick": quick = true
            case "--cpu": options.cpu = true
            case "--specs":
                guard let value = rest.popFirst(), !value.isEmpty else { throw .usage("--specs needs a folder") }
                specs = value
            case "--flows":
                let counts = rest.popFirst()?.split(separator: ",").compactMap { Int($0) } ?? []
                guard !counts.isEmpty, counts.allSatisfy({ $0 > 0 }) else { throw .usage("--flows needs counts, e.g. 1000,10000") }
                flows = counts
            case "--requests":
                guard let value = rest.popFirst().flatMap({ Int($0) }), value > 0 else { throw .usage("--requests needs a count") }
                requests = value
            case "--jobs":
                guard let value = rest.popFirst().flatMap({ Int($0) }), value > 0 else { throw .usage("--jobs needs a number") }
                options.jobs = value
            case "--trivial-responder": options.trivialResponder = true
            case "--only":
                guard let value = rest.popFirst(), let part = Part(rawValue: value) else {
                    throw .usage("--only needs one of: " + Part.allCases.map(\.rawValue).joined(separator: ", "))
                }
                only.insert(part)
            default: throw .usage("unknown argument \(argument)")
            }
        }
        if quick {
            // Only the sizes change; every other flag stands.
            options.suiteRuns = BenchOptions.quick.suiteRuns
            options.flowCounts = BenchOptions.quick.flowCounts
            options.requests = BenchOptions.quick.requests
        }
        if let specs { options.specsDirectory = specs }
        if !only.isEmpty { options.parts = only }
        guard options.soakSeconds >= options.soakBaselineSeconds else { throw .usage("--soak-seconds must be at least --baseline-seconds") }
        if let flows { options.flowCounts = flows }
        if let requests { options.requests = requests }
        return options
    }
}
