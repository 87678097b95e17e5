// swift-tools-version:6.0
// FlowCheck: a declarative flow-spec conformance harness for mobile OAuth SDKs.
// No package dependencies: Foundation, FoundationNetworking, Dispatch and the test libraries only.
import PackageDescription

let package = Package(
    name: "FlowCheck",
    platforms: [.macOS(.v13), .iOS(.v16)],
    products: [
        .executable(name: "flowcheck", targets: ["flowcheck"]),
        .executable(name: "flowcheck-bench", targets: ["flowcheck-bench"]),
        .library(name: "FlowCheckSDK", targets: ["FlowCheckSDK"]),
        .library(name: "FlowCheckFakeServer", targets: ["FlowCheckFakeServer"]),
        .library(name: "FlowCheckTestSupport", targets: ["FlowCheckTestSupport"]),
        .library(name: "FlowCheckRunner", targets: ["FlowCheckRunner", "FlowCheckSpec", "FlowCheckProviders", "FlowCheckReports", "FlowCheckServe"]),
        .library(name: "FlowCheckExampleDriver", targets: ["FlowCheckExampleDriver"]),
        .library(name: "FlowCheckProcessDriver", targets: ["FlowCheckProcessDriver"]),
        // The whole command line for a team's own driver: `exit(await FlowCheckMain.run(driver: MyDriver()))`.
        .library(name: "FlowCheckCLI", targets: ["FlowCheckCLI"]),
    ],
    targets: [
        // The SDK core: our own platform-neutral OAuth client. Foundation only.
        .target(name: "FlowCheckSDK"),
        // In-process HTTP/1.1 fake providers on loopback. Knows nothing of the SDK.
        .target(name: "FlowCheckFakeServer", dependencies: ["CFlowCheckEpoll"]),
        // epoll and eventfd for the fake server's Linux event loop (headers only, from the C library).
        .systemLibrary(name: "CFlowCheckEpoll"),
        // Test doubles downstream SDK teams can use too: the manual clock, server helpers.
        .target(name: "FlowCheckTestSupport", dependencies: ["FlowCheckSDK", "FlowCheckFakeServer"]),
        // The spec format: a position-aware JSON reader, the model, the loader and its diagnostics.
        .target(name: "FlowCheckSpec"),
        // Each provider as one unit: its spec vocabulary, fixture decoding into the fake's own
        // fixture type, schema part and fake persona; one registry lists them.
        .target(name: "FlowCheckProviders", dependencies: ["FlowCheckSpec", "FlowCheckFakeServer"]),
        // The harness's own HTTP/1.1 client (the scripted browser, `send` steps): a twin of the
        // SDK's transport that shares no code with it, and needs nothing of the runner (of the
        // fake server, only the harness's `Locked`).
        .target(name: "FlowCheckHarnessHTTP", dependencies: ["FlowCheckFakeServer"]),
        // Runs specs through a driver against a fresh fake server per flow; produces results.
        .target(name: "FlowCheckRunner", dependencies: ["FlowCheckSpec", "FlowCheckProviders", "FlowCheckFakeServer", "FlowCheckTestSupport", "FlowCheckHarnessHTTP"]),
        // `flowcheck serve`: the fakes standalone, with their control API and log; it runs them
        // in the runner's fake worlds.
        .target(name: "FlowCheckServe", dependencies: ["FlowCheckRunner", "FlowCheckProviders", "FlowCheckFakeServer", "FlowCheckSpec"]),
        // Any SDK in any language: a driver process spoken to in JSON lines (docs/protocol.md).
        .target(name: "FlowCheckProcessDriver", dependencies: ["FlowCheckRunner", "FlowCheckSpec", "FlowCheckFakeServer", "FlowCheckTestSupport"]),
        // The driver that puts our SDK core under the runner.
        .target(name: "FlowCheckCoreDriver", dependencies: ["FlowCheckRunner", "FlowCheckProviders", "FlowCheckSpec", "FlowCheckSDK", "FlowCheckFakeServer"]),
        // Random flows from provider models, run and shrunk to ordinary specs (`flowcheck explore`).
        .target(name: "FlowCheckExplore", dependencies: ["FlowCheckRunner", "FlowCheckSpec", "FlowCheckProviders", "FlowCheckFakeServer", "FlowCheckTestSupport", "FlowCheckReports"]),
        // JUnit XML and Markdown, written from results only.
        .target(name: "FlowCheckReports", dependencies: ["FlowCheckRunner", "FlowCheckSpec"]),
        // Argument parsing, console output and exit codes, as a library so it can be tested.
        .target(name: "FlowCheckCLI", dependencies: ["FlowCheckRunner", "FlowCheckServe", "FlowCheckFakeServer", "FlowCheckReports", "FlowCheckCoreDriver", "FlowCheckProcessDriver", "FlowCheckExampleDriver", "FlowCheckProviders", "FlowCheckSpec", "FlowCheckExplore"]),
        .executableTarget(name: "flowcheck", dependencies: ["FlowCheckCLI"]),
        // Speed targets live here, never in timed assertions: `swift run -c release flowcheck-bench`.
        .executableTarget(
            name: "flowcheck-bench",
            dependencies: ["FlowCheckRunner", "FlowCheckServe", "FlowCheckCoreDriver", "FlowCheckSpec", "FlowCheckProviders", "FlowCheckFakeServer", "FlowCheckReports", "FlowCheckProcessDriver", "FlowCheckExplore", "FlowCheckSDK"],
            path: "Sources/FlowCheckBench"
        ),
        // A second driver, for an SDK that is not ours: what another team writes in their package.
        .target(name: "FlowCheckExampleDriver", dependencies: ["FlowCheckRunner", "FlowCheckSpec", "FlowCheckProviders"]),

        // The two lanes of our own suite (`.fast`, `.integration` traits; FLOWCHECK_LANE picks one).
        .target(name: "FlowCheckTestLanes", path: "Sources/FlowCheckTestLanes"),

        .testTarget(name: "FlowCheckSDKTests", dependencies: ["FlowCheckTestLanes", "FlowCheckSDK", "FlowCheckTestSupport", "FlowCheckFakeServer"]),
        .testTarget(name: "FlowCheckFakeServerTests", dependencies: ["FlowCheckTestLanes", "FlowCheckFakeServer", "FlowCheckTestSupport"]),
        .testTarget(name: "FlowCheckSpecTests", dependencies: ["FlowCheckTestLanes", "FlowCheckSpec", "FlowCheckProviders", "FlowCheckFakeServer", "FlowCheckTestSupport"]),
        .testTarget(
            name: "FlowCheckRunnerTests",
            dependencies: ["FlowCheckTestLanes", "FlowCheckRunner", "FlowCheckCoreDriver", "FlowCheckSDK", "FlowCheckSpec", "FlowCheckProviders", "FlowCheckFakeServer", "FlowCheckTestSupport", "FlowCheckExampleDriver", "FlowCheckReports", "FlowCheckCLI", "FlowCheckProcessDriver", "FlowCheckHarnessHTTP", "FlowCheckServe"],
            exclude: ["InvariantFlows"]
        ),
        .testTarget(
            name: "FlowCheckReportsTests",
            dependencies: ["FlowCheckTestLanes", "FlowCheckReports", "FlowCheckRunner", "FlowCheckSpec"],
            exclude: ["Golden"]
        ),
        // Saves tokens until killed: for the end-to-end test of what a killed save leaves.
        .executableTarget(name: "store-churn", dependencies: ["FlowCheckSDK"], path: "Tests/StoreChurn"),
        // A team's own flowcheck over a Swift driver that blocks the main thread and the task
        // pool: for the end-to-end test that Ctrl-C and the run's end still end the process.
        .executableTarget(name: "blocking-driver", dependencies: ["FlowCheckCLI", "FlowCheckRunner"], path: "Tests/BlockingDriver"),
        .testTarget(name: "FlowCheckEndToEndTests", dependencies: ["FlowCheckTestLanes", "flowcheck", "store-churn", "blocking-driver", "FlowCheckSDK", "FlowCheckTestSupport"]),
        .testTarget(
            name: "FlowCheckExploreTests",
            dependencies: ["FlowCheckTestLanes", "FlowCheckExplore", "FlowCheckRunner", "FlowCheckCoreDriver", "FlowCheckSDK", "FlowCheckSpec", "FlowCheckProviders"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
