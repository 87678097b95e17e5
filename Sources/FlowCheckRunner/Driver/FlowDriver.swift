import Foundation
import FlowCheckFakeServer
import FlowCheckSpec
import FlowCheckTestSupport

/// Puts an SDK under the runner. Our SDK core's driver is one implementation; another team
/// implements this for their own SDK and runs the same specs against it.
///
/// A driver is asked for a fresh ``FlowSession`` per flow; the session performs the spec's app
/// actions on the SDK and reports what is in the SDK's token store.
public protocol FlowDriver: Sendable {
    /// A short name for reports, e.g. "FlowCheck SDK core".
    var name: String { get }

    /// A fresh SDK for one flow, pointed at the flow's fake server and clock.
    /// - Throws: anything; the flow is then reported as a harness error.
    func makeSession(for context: DriverContext) async throws -> any FlowSession

    /// Why this driver cannot run `spec` at all (a provider or an action it does not have, a
    /// clock it cannot be given), or nil (the default) when it can. The flow is then reported
    /// as skipped with the reason: never run, never passed.
    func unsupportedReason(for spec: FlowSpec) async -> String?

    /// Whether the SDK keeps state for the whole process rather than per instance (a shared
    /// singleton, a static URL handler, one redirect callback for the app): two flows' sessions
    /// would then see each other's tokens and redirects. When true, the runner runs this
    /// driver's flows one at a time, whatever its concurrency (`--jobs`) says. false (the
    /// default): each session is its own SDK, and flows run at once.
    var sharesProcessState: Bool { get }
}

extension FlowDriver {
    /// Runs every flow it is given; one it cannot run fails in its steps.
    public func unsupportedReason(for spec: FlowSpec) async -> String? { nil }

    /// Each session is an SDK of its own: flows may run at once.
    public var sharesProcessState: Bool { false }
}

/// What a driver needs to build an SDK for one flow.
public struct DriverContext: Sendable {
    /// The flow's catalogue id, for the driver's own diagnostics.
    public var flowID: String
    public var provider: Provider
    /// The fake provider's base URL, e.g. `http://127.0.0.1:54321`: its primary origin's.
    public var baseURL: URL
    /// Every origin of the fake provider by name, `baseURL` among them. Most providers serve
    /// everything on one origin (`["main": baseURL]`); Clover serves its login pages on
    /// `baseURLs["web"]` and its token endpoints and API on `baseURLs["api"]` (= `baseURL`),
    /// each refusing the other's paths with 404, as Clover's real hosts do.
    public var baseURLs: [String: URL]
    /// The virtual clock the fake server also reads: give it to the SDK as its time source.
    public var clock: ManualClock
    /// A fresh, empty, owner-only folder for the SDK's token store; removed after the flow.
    public var storageDirectory: URL
    /// The browser: wire the SDK's external user agent to it (open and dismiss), and the
    /// runner's scripted browser plays the user on what the SDK opened.
    public var browser: BrowserWindow
    /// Tick it whenever the SDK or driver does something the runner cannot see (a driver
    /// process's every line does): the flow's watchdog reads it, with the fake server's own
    /// activity and the steps taken, as progress, so a flow that is merely slow is never hung.
    public var activity: ActivityMeter
    /// Masks every secret the flow knows so far (its fixture's, every token and code its fake
    /// issued, the values its steps captured): a driver that quotes what its SDK or its process
    /// said in an error masks the text with it *before* cutting it short, since a secret cut in
    /// half is no longer one the report's own masking can find.
    public var mask: @Sendable (String) -> String

    /// - Parameter baseURLs: every origin by name; by default `baseURL` alone, as `main`.
    /// - Parameter mask: the flow's masking; by default none (a context made by hand).
    public init(flowID: String, provider: Provider, baseURL: URL, baseURLs: [String: URL]? = nil, clock: ManualClock, storageDirectory: URL, browser: BrowserWindow = BrowserWindow(), activity: ActivityMeter = ActivityMeter(), mask: @escaping @Sendable (String) -> String = { $0 }) {
        self.mask = mask
        self.flowID = flowID
        self.provider = provider
        self.baseURL = baseURL
        self.baseURLs = baseURLs ?? ["main": baseURL]
        self.clock = clock
        self.storageDirectory = storageDirectory
        self.browser = browser
        self.activity = activity
    }
}

/// One SDK instance (and its relaunches) for the length of one flow.
public protocol FlowSession: AnyObject, Sendable {
    /// Performs an app action, e.g. `auth` with `clientId` and `clientSecret`.
    ///
    /// Return `.ok` with result fields, or `.error` with one of ``Vocabulary/errorKinds`` for an
    /// error the SDK surfaced. Throw only when the driver itself cannot go on (for example an
    /// action it does not support): the flow is then a harness error, not a failure.
    func perform(_ call: AppCall) async throws -> CallOutcome

    /// Performs an app action the flow leaves running in the background (an `async` step), as
    /// ``perform(_:)`` does, calling `underway` once the call is on its way to the SDK: from
    /// then on whatever the harness asks next reaches the SDK after it. The default calls
    /// `underway` at once, right for an SDK in this process; a session whose calls travel (a
    /// driver process's stdin) calls it once the call is written, so a question asked next
    /// (a `store` check) cannot overtake it.
    func performInBackground(_ call: AppCall, underway: @escaping @Sendable () -> Void) async throws -> CallOutcome

    /// The SDK's stored token as named fields (`accessToken`, `refreshToken`, `expiresAt`,
    /// `tokenType`); empty when nothing is stored.
    func storeContents() async throws -> [String: String]

    /// Where the SDK's token store keeps its files, for `storeFiles` checks; nil (the default)
    /// when the store is not file-backed (a Keychain, memory): those checks are then reported
    /// as skipped, with that reason, never as passed. The harness measures the files itself
    /// (modes, inodes, what else lies in the directory); the driver only says where they are.
    func storeLocation() async throws -> StoreLocation?

    /// Arms a crash of the SDK's token store at `point` (a `crashStore` step): the store's next
    /// write dies there as if the app were killed, leaving on disk whatever a real crash at that
    /// point would leave (for a rename-replacing file store: the written temporary file, the old
    /// file untouched), and fails, so the SDK call that made it returns. One write only.
    ///
    /// Return ``StoreCrashSupport/unsupported(_:)`` (the default) when the driver cannot interrupt
    /// its store there: the step and the rest of the flow, which judges what the crash left, are
    /// then reported as skipped with that reason, never as passed.
    func armStoreCrash(_ point: StoreCrashPoint) async throws -> StoreCrashSupport

    /// Whether the SDK opens logins in the device's own browser (an external user agent, RFC
    /// 8252 §6), which no app can close, rather than presenting a page it dismisses itself.
    /// Where the provider's documents allow that (``ProviderDescription/externalBrowser``),
    /// dismissal is then not judged: INV-DISMISS and `browser.dismissed` are reported as not
    /// checked, with why. False (the default): the SDK presents the page and dismisses it.
    func opensExternalBrowser() async -> Bool

    /// Every request the SDK handed to the network in this session so far, in order, as the
    /// driver saw it on the way out: those that reached a fake and those that never could (a
    /// host that does not resolve, a clear-text URL elsewhere). INV-ORIGIN judges where they
    /// carried credentials. nil (the default) when the driver cannot see them: INV-ORIGIN then
    /// judges only what reached the fakes.
    func sentRequests() async -> [SentRequest]?

    /// Ends the SDK's part of the flow once its last step has run, before ``log()`` and
    /// ``close()``, and says what went wrong that no answer carried (a driver process that
    /// broke the protocol after the last question, or did not stop as asked): the flow is then
    /// a harness error naming the error's ``DriverError/party``. nil (the default) when all
    /// was well.
    func finish() async -> DriverError?

    /// The driver's own log for this flow (an out-of-process driver's stderr), kept in the
    /// flow's transcript; empty (the default) when there is none. Asked once, before `close`.
    func log() async -> [String]

    /// Releases the SDK's resources (sessions, files). Called once when the flow ends.
    func close() async
}

/// A request as the SDK sent it, seen by the driver at the network boundary.
public struct SentRequest: Sendable {
    public var method: String
    public var url: URL
    public var headers: [(String, String)]
    public var body: Data

    public init(method: String, url: URL, headers: [(String, String)], body: Data) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }
}

extension FlowSession {
    /// Under way as soon as it is called.
    public func performInBackground(_ call: AppCall, underway: @escaping @Sendable () -> Void) async throws -> CallOutcome {
        underway()
        return try await perform(call)
    }

    /// No log of its own.
    public func log() async -> [String] { [] }

    /// Nothing to report at the end.
    public func finish() async -> DriverError? { nil }

    /// Cannot see the SDK's outgoing requests: INV-ORIGIN judges what reached the fakes.
    public func sentRequests() async -> [SentRequest]? { nil }

    /// Not file-backed: `storeFiles` checks are skipped.
    public func storeLocation() async throws -> StoreLocation? { nil }

    /// Presents the login page itself, and dismisses it.
    public func opensExternalBrowser() async -> Bool { false }

    /// Cannot interrupt its store: `crashStore` steps and the rest of their flow are skipped.
    public func armStoreCrash(_ point: StoreCrashPoint) async throws -> StoreCrashSupport {
        .unsupported("the driver cannot interrupt its token store's writes")
    }
}

/// Whether a driver armed a store crash.
public enum StoreCrashSupport: Sendable, Equatable {
    /// The store's next write dies at the point asked for.
    case armed
    /// The driver cannot do it, and why (its store is not file-backed, or not one it can interrupt).
    case unsupported(String)
}

/// Where a file-backed token store keeps its items.
public struct StoreLocation: Sendable, Equatable {
    /// The folder the store owns (inside the ``DriverContext/storageDirectory`` it was given).
    public var directory: URL
    /// The names of the files in `directory` that hold the stored items now; anything else in
    /// the folder is a leftover (a temporary file, a backup).
    public var files: [String]

    public init(directory: URL, files: [String]) {
        self.directory = directory
        self.files = files
    }
}

/// An app action with its arguments, variables already substituted.
public struct AppCall: Sendable, Equatable {
    public var name: String
    public var arguments: [String: String]

    public init(name: String, arguments: [String: String] = [:]) {
        self.name = name
        self.arguments = arguments
    }
}

/// How an SDK call ended.
public enum CallOutcome: Sendable, Equatable {
    /// Success, with result fields such as `productCount`.
    case ok([String: String])
    /// An error the SDK surfaced to the app: a kind from ``Vocabulary/errorKinds`` and its message.
    case error(kind: String, message: String)
    /// The SDK would have crashed the app (a trap such as a force unwrap of nil). Drivers for
    /// SDKs that can trap report it this way so the harness itself survives to say so.
    case crashed(String)
}

/// Something that stopped a flow before it could be judged: a driver that cannot do what a
/// spec asks, a driver process that broke the protocol, or the harness's own trouble. Its
/// ``party`` says whose it is, and the flow's harness error names that party.
public struct DriverError: Error, Sendable, CustomStringConvertible {
    public var description: String
    /// Who broke: ``HarnessParty/driver`` (the default) for what a driver in process throws.
    public var party: HarnessParty
    /// A driver process broke the protocol while the flow ran (a message out of order, a line
    /// that is not a message): what the flow found after that cannot be trusted, so the flow's
    /// verdict is this error, and it replaces what was blamed on the SDK meanwhile.
    public var voidsTheFlow: Bool

    /// - Parameter party: whose fault it is; a Swift driver's own errors are ``HarnessParty/driver``.
    public init(_ description: String, party: HarnessParty = .driver, voidsTheFlow: Bool = false) {
        self.description = description
        self.party = party
        self.voidsTheFlow = voidsTheFlow
    }

    /// The driver has no such app action.
    public static func unsupported(_ call: AppCall, provider: Provider) -> DriverError {
        DriverError("the driver does not support the \(provider.rawValue) action \"\(call.name)\"")
    }
}
