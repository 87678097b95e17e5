import Foundation
import FlowCheckExplore
import FlowCheckServe
import FlowCheckSpec

extension CommandLineOptions {
    /// Every option, declared once, in the order `--help` and the docs list them. The parser,
    /// `--help` (``usage``) and `docs/command-line.md` (``CommandLineDocs``) are made from this
    /// list; `CommandLineDocsTests` fails when the committed page is not what it renders.
    static let declarations: [OptionDeclaration] = runOptions + serveOptions + generalOptions + exploreOptions

    private static let runOptions: [OptionDeclaration] = [
        .init(
            ["--driver"], value: "COMMAND", commands: [.run],
            help: "run every flow through a driver process speaking the driver protocol (docs/protocol.md; one process per flow, started with /bin/sh -c); default: the in-process SDK core. COMMAND builtin:core and builtin:example are in-process",
            doc: "Run every flow through a driver process that speaks the driver protocol, in any language: one process per flow, started with `/bin/sh -c COMMAND`. `builtin:core` (our SDK core) and `builtin:example` are the in-process drivers. Default: our SDK core, in process. Given once.",
            apply: { options, text throws(UsageError) in try addDriver(text, to: &options) }
        ),
        .init(
            ["--driver"], value: "NAME=COMMAND", commands: [.matrix], required: true, repeatable: true,
            help: "matrix: a driver and the name of its column, once per driver (COMMAND as for a run)",
            doc: "A driver and the name of its column: everything before the first `=` is the name (no spaces or quotes), the rest the command, as for a run's `--driver` (`builtin:core` too). Once per driver, in column order; at least one, each name once.",
            apply: { options, text throws(UsageError) in try addDriver(text, to: &options) }
        ),
        .init(
            ["--junit"], value: "PATH", commands: [.run],
            help: "JUnit XML report (default: reports/junit.xml)",
            doc: "Where the JUnit XML report is written (default: `reports/junit.xml`; a run of part of the suite, by `--filter`, `--shard`, `--no-derived` or fewer spec files, writes to `reports/subset/` instead, so the committed full reports stay as they are). A path given is written as given.",
            apply: { options, text throws(UsageError) in
                options.junitPath = text
                options.chosenReports.insert("--junit")
            }
        ),
        .init(
            ["--markdown"], value: "PATH", commands: [.run, .matrix],
            help: "Markdown report (default: reports/flowcheck.md; matrix: reports/matrix.md)",
            doc: "Where the Markdown report is written (default: `reports/flowcheck.md`; for `matrix`, its table: `reports/matrix.md`; for a run or matrix of part of the suite, `reports/subset/`). A path given is written as given.",
            apply: { options, text throws(UsageError) in
                options.markdownPath = text
                options.chosenReports.insert("--markdown")
            }
        ),
        .init(
            ["--json"], value: "PATH", commands: [.matrix],
            help: "matrix: the matrix as JSON (default: reports/matrix.json)",
            doc: "Where the matrix is written as JSON (default: `reports/matrix.json`). For a run's JSON on stdout, see `--format json`.",
            apply: { options, text throws(UsageError) in
                options.matrixJSONPath = text
                options.chosenReports.insert("--json")
            }
        ),
        .init(
            ["--filter"], value: "REGEX", commands: [.run, .matrix],
            help: "run only the flows whose id matches REGEX",
            doc: "Run only the flows whose id matches REGEX (and the variants derived from them, or the variants whose own id it matches). The pattern is checked before anything runs.",
            apply: { options, pattern throws(UsageError) in options.filter = try filter(pattern) }
        ),
        .init(
            ["--shard"], value: "I/N", commands: [.run],
            help: "run the I-th of N deterministic slices of the flows (by id)",
            doc: "Run the I-th of N deterministic slices of the flows, by id; the N shards together run every flow exactly once (`--shard 1/3`, `--shard 2/3`, `--shard 3/3` across three CI jobs).",
            apply: { options, text throws(UsageError) in
                let parts = text.split(separator: "/").map { Int($0) }
                guard parts.count == 2, let i = parts[0], let n = parts[1], n >= 1, n <= 1000, i >= 1, i <= n else {
                    throw UsageError(description: "--shard takes I/N with 1 <= I <= N, e.g. 2/3, not \(text)")
                }
                options.shard = (i, n)
            }
        ),
        .init(
            ["--jobs"], value: "N", commands: [.run, .matrix],
            help: "flows run at once (default: four times the number of cores; one more than the cores for a driver process; one for a Swift driver whose SDK keeps process-wide state)",
            doc: "How many flows run at once, 1 to 256 (default: four times the number of cores, since a flow spends much of its time waiting on loopback I/O; one more than the number of cores for a driver process, each flow a process of its own; always one for a Swift driver that declares process-wide state).",
            apply: { options, text throws(UsageError) in options.jobs = try count("--jobs", text, 1...256) }
        ),
        .init(
            ["--format"], value: "FORMAT", commands: [.run],
            help: "text (default) or json: machine-readable results on stdout",
            doc: "`text` (default) or `json`: one JSON document on stdout and nothing else there (annotations, progress and the closing line go to stderr), valid against `reports/flowcheck-report.schema.json`. Not with `--list`.",
            apply: { options, text throws(UsageError) in
                guard let format = Format(rawValue: text) else { throw UsageError(description: "--format takes text or json, not \(text)") }
                options.format = format
            }
        ),
        .init(
            ["--baseline"], value: "FILE", commands: [.run],
            help: "flows expected to fail, one a line as `FLOW-ID reason words` (# comments, blank lines; an invariant id such as INV-KEEP covers the flows that fail only that invariant): their failures are reported as baselined and do not fail the run; a new failure does; a listed flow that passes is reported",
            doc: "Flows expected to fail, one a line as `FLOW-ID reason words` (`#` comments and blank lines allowed; an invariant id such as `INV-KEEP` covers the flows that fail only that invariant). Their failures are reported as baselined and do not fail the run; any other failure does; a listed flow that passes is reported. A malformed line or an unknown id is a usage error naming `FILE:LINE`.",
            apply: { options, text throws(UsageError) in options.baselinePath = text }
        ),
        .init(
            ["--strict-baseline"], commands: [.run],
            help: "with --baseline: a listed flow that passes fails the run (exit 1)",
            doc: "With `--baseline`: a listed flow that now passes fails the run (exit 1).",
            apply: { options, _ throws(UsageError) in options.strictBaseline = true }
        ),
        .init(
            ["--write-baseline"], value: "FILE", commands: [.run],
            help: "write this run's failed flows as a baseline (sorted, each with its first failure), for --baseline",
            doc: "Write this run's failed flows to FILE as a baseline for `--baseline`: sorted, each with its first failed check as the reason, under a comment saying how it was made. The run's exit code is unchanged.",
            apply: { options, text throws(UsageError) in options.writeBaselinePath = text }
        ),
        .init(
            ["--list"], commands: [.run],
            help: "list the flows without running them",
            doc: "List the flows (id, title, file) without running them.",
            apply: { options, _ throws(UsageError) in options.list = true }
        ),
        .init(
            ["--requirements"], commands: [.run],
            help: "with --list: print the requirement coverage matrix (who checks what)",
            doc: "With `--list`: print the requirement coverage matrix instead (which flows check each requirement); nothing runs.",
            apply: { options, _ throws(UsageError) in options.requirements = true }
        ),
        .init(
            ["--derived"], commands: [.run],
            help: "with --list: list the variants derived from the flows, with their rules",
            doc: "With `--list`: list the variants derived from the flows, each with its rule, instead of the flows.",
            apply: { options, _ throws(UsageError) in options.derived = true }
        ),
        .init(
            ["--no-derived"], commands: [.run],
            help: "run the written flows only, not the adversarial variants derived from them (docs/derived-variants.md)",
            doc: "Run the written flows only, not the adversarial variants derived from them.",
            apply: { options, _ throws(UsageError) in options.noDerived = true }
        ),
    ]

    private static let serveOptions: [OptionDeclaration] = [
        .init(
            ["--port"], value: "N", commands: [.serve],
            help: "serve: the first port (providers take N, N+1, ...; default: ephemeral)",
            doc: "The first port: the providers' origins take N, N+1, ... in registration order (moltin, clover's API host, then its web host, clever, braintree). Default: ephemeral ports. Checked before any is bound: the ports must fit under 65536 and miss `--control-port`.",
            apply: { options, text throws(UsageError) in
                // Whether the ports after it are free to take is known once the fixture is
                // read (`serve` checks it before binding any).
                options.port = try port("--port", text)
            }
        ),
        .init(
            ["--fixture"], value: "FILE", commands: [.serve],
            help: "serve: fixtures to serve instead of the documented default",
            doc: "Fixtures to serve instead of the default: a JSON object with any of the providers' keys (`moltin`, `clover`, ...), each a fixture as specs write it.",
            apply: { options, text throws(UsageError) in options.fixturePath = text }
        ),
        .init(
            ["--host"], value: "ADDR", commands: [.serve],
            help: "serve: the IPv4 address the fakes bind (default: 127.0.0.1; 0.0.0.0 lets a phone reach them, and warns: any client may use the fakes)",
            doc: "The IPv4 address the fakes bind (default: `127.0.0.1`). `0.0.0.0` lets a phone on the desk reach them, and `serve` then warns on stderr that the fakes accept any client and hold the fixture's test secrets.",
            apply: { options, text throws(UsageError) in
                guard FakeProviderHost.isBindableHost(text) else { throw UsageError(description: "--host takes an IPv4 address such as 127.0.0.1 or 0.0.0.0, not \(text)") }
                options.host = text
            }
        ),
        .init(
            ["--control-port"], value: "N", commands: [.serve],
            help: "serve: the control API's port, always on 127.0.0.1 (default: ephemeral)",
            doc: "The control API's port, always on 127.0.0.1 whatever `--host` says (default: ephemeral).",
            apply: { options, text throws(UsageError) in options.controlPort = try port("--control-port", text) }
        ),
        .init(
            ["--ready-file"], value: "F", commands: [.serve],
            help: "serve: once every port listens, write F (JSON: base URLs and the control URL) atomically; scripts wait for it instead of racing start",
            doc: "Once every port listens, write F atomically (a temporary file renamed into place) with every base URL and the control URL, as JSON: a script waits for the file instead of racing the start.",
            apply: { options, text throws(UsageError) in options.readyFile = text }
        ),
        .init(
            ["--keep-exchanges"], value: "N", commands: [.serve],
            help: "serve: exchanges each provider keeps in memory, the latest (default: 1000)",
            doc: "How many exchanges each provider keeps in memory, the latest (default: 1000; 1 to 1000000); bodies are cut at 64 KiB in the record.",
            apply: { options, text throws(UsageError) in options.keepExchanges = try count("--keep-exchanges", text, 1...1_000_000) }
        ),
        .init(
            ["--max-connections"], value: "N", commands: [.serve],
            help: "serve: connections served at once per port; one more closes the longest-idle connection, or gets 503 when none is idle (default: each port's share of the descriptor limit, at most 1024)",
            doc: "Connections served at once on each port, the control port included (1 to 100000; default: each port's share of the process's descriptor limit, raised to the hard limit first, less 64 for the rest, between 8 and 1024). One more closes the connection that has waited longest for its next request, and is served; when none is idle it is answered `503` with `Retry-After: 1` and closed.",
            apply: { options, text throws(UsageError) in options.maxConnections = try count("--max-connections", text, 1...100_000) }
        ),
    ]

    private static let generalOptions: [OptionDeclaration] = [
        .init(
            ["--version"], commands: Command.allCases.filter { $0 != .explore }, general: true,
            help: "print flowcheck's version",
            doc: "Print flowcheck's version (`flowcheck 1.2.3`) and exit 0.",
            apply: { options, _ throws(UsageError) in options.version = true }
        ),
        .init(
            ["-h", "--help"], commands: Command.allCases, general: true,
            help: "show this help",
            doc: "Print the help (every command's options, the exit codes, the environment) and exit 0.",
            apply: { options, _ throws(UsageError) in options.help = true }
        ),
    ]

    private static let exploreOptions: [OptionDeclaration] = [
        .init(
            ["--provider"], value: "P", commands: [.explore], repeatable: true,
            help: "a provider with a model (repeatable; default: every one)",
            doc: "Explore this provider's model only; repeatable (default: every provider with a model).",
            apply: { options, name throws(UsageError) in
                let known = ExploreModels.all.map(\.provider.rawValue)
                guard known.contains(name) else {
                    let hint = Suggestion.closest(to: name, in: known).map { " (did you mean \($0)?)" } ?? ""
                    throw UsageError(description: "--provider: no model for \"\(name)\"\(hint); providers with a model: \(known.joined(separator: ", "))")
                }
                if !options.explore.providers.contains(name) { options.explore.providers.append(name) }
            }
        ),
        .init(
            ["--seed"], value: "N", commands: [.explore],
            help: "the seed (default: a random one, printed so it can be replayed)",
            doc: "The seed (default: a random one, printed with the command that replays it). The same seed gives the same flows, findings and reach table.",
            apply: { options, text throws(UsageError) in
                guard let seed = UInt64(text) else { throw UsageError(description: "--seed takes a whole number from 0 to \(UInt64.max), not \(text)") }
                options.explore.seed = seed
            }
        ),
        .init(
            ["--runs"], value: "N", commands: [.explore],
            help: "flows to generate (default: 200)",
            doc: "How many flows to generate (default: 200; 1 to 1000000).",
            apply: { options, text throws(UsageError) in options.explore.runs = try count("--runs", text, 1...1_000_000) }
        ),
        .init(
            ["--steps"], value: "N", commands: [.explore],
            help: "most steps in one flow (default: 12)",
            doc: "The most steps in one generated flow (default: 12; 1 to 200).",
            apply: { options, text throws(UsageError) in options.explore.steps = try count("--steps", text, 1...200) }
        ),
        .init(
            ["--out"], value: "DIR", commands: [.explore],
            help: "where shrunk failing specs are written (default: reports/explore)",
            doc: "The folder each distinct failure is written to, shrunk, as a spec (default: `reports/explore`; made if missing). `flowcheck DIR` replays them.",
            apply: { options, text throws(UsageError) in options.explore.out = text }
        ),
        .init(
            ["--budget"], value: "TIME", commands: [.explore],
            help: "start no flow after TIME (60s, 5m): a run bounded by time as well as by --runs; the summary says how many flows ran",
            doc: "Start no flow after TIME (`60s`, `5m`; 1 s to 24 h), whatever `--runs` says; the summary says how many ran. Shrinking what was found still runs after it.",
            apply: { options, text throws(UsageError) in
                guard let seconds = SpecDuration.seconds(text).flatMap({ $0 >= 1 && $0 <= 86_400 ? $0 : nil }) else {
                    throw UsageError(description: "--budget takes a duration from 1s to 24h (e.g. 60s, 5m), not \(text)")
                }
                options.explore.budgetSeconds = seconds
            }
        ),
        .init(
            ["--reach"], value: "PATH", commands: [.explore],
            help: "also write the reach table (Markdown): every action and perturbation of each model with how many generated flows reached it",
            doc: "Also write the reach table (Markdown): every action and perturbation of each model, with how many generated flows reached it.",
            apply: { options, text throws(UsageError) in options.explore.reachTable = text }
        ),
        .init(
            ["--jobs"], value: "N", commands: [.explore],
            help: "flows run at once (default: the number of cores)",
            doc: "How many flows run at once, 1 to 256 (default: the number of cores).",
            apply: { options, text throws(UsageError) in options.explore.jobs = try count("--jobs", text, 1...256) }
        ),
    ]

    // MARK: - Value checks shared by several options

    /// A whole number in `range`, or the refusal naming `flag`.
    private static func count(_ flag: String, _ text: String, _ range: ClosedRange<Int>) throws(UsageError) -> Int {
        guard let value = Int(text), range.contains(value) else {
            throw UsageError(description: "\(flag) takes a whole number from \(range.lowerBound) to \(range.upperBound), not \(text)")
        }
        return value
    }

    /// `--filter`'s pattern, once it is known to compile, or the refusal with its fix.
    private static func filter(_ pattern: String) throws(UsageError) -> String {
        do {
            _ = try LinearRegex(pattern)
        } catch {
            throw UsageError(description: "--filter: \(error.title(pattern: pattern))\n  fix: \(error.fix)")
        }
        return pattern
    }

    /// A TCP port (0: ephemeral), or the refusal naming `flag`.
    private static func port(_ flag: String, _ text: String) throws(UsageError) -> Int {
        guard let port = Int(text), (0...65_535).contains(port) else { throw UsageError(description: "\(flag) takes a port from 0 to 65535, not \(text)") }
        return port
    }

    /// `--driver`'s value, as given: `matrix` splits NAME=COMMAND once every option is read.
    private static func addDriver(_ text: String, to options: inout CommandLineOptions) throws(UsageError) {
        guard !text.trimmingCharacters(in: .whitespaces).isEmpty else { throw UsageError(description: "--driver needs a command, e.g. --driver 'python3 driver.py'") }
        options.drivers.append(DriverChoice(name: nil, command: text))
    }
}
