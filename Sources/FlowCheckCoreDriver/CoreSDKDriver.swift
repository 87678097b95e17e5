import Foundation
import FlowCheckProviders
import FlowCheckRunner
import FlowCheckSDK
import FlowCheckSpec

/// The driver that puts our own SDK core under the runner: the first ``FlowDriver``.
///
/// Its parts are injectable so tests can build deliberately broken SDKs from the real one (a
/// transport that tampers with requests, a store that forgets) and prove each spec catches them.
public struct CoreSDKDriver: FlowDriver {
    /// Builds the transport a session uses; the default is a real `URLSessionTransport`.
    public typealias TransportFactory = @Sendable (_ base: any HTTPTransport) -> any HTTPTransport
    /// Builds the token store a session uses; the default is a real `FileTokenStore`.
    public typealias StoreFactory = @Sendable (_ base: FileTokenStore) -> any TokenStore
    /// Builds the browser seam; the default forwards to the runner's browser window.
    public typealias UserAgentFactory = @Sendable (_ base: any ExternalUserAgent) -> any ExternalUserAgent
    /// Builds the time source the SDK reads; the default is the flow's virtual clock.
    public typealias ClockFactory = @Sendable (_ base: any TimeSource) -> any TimeSource
    /// Builds the randomness the SDK draws state and verifiers from; the default is the system's.
    public typealias RandomFactory = @Sendable (_ base: any RandomSource) -> any RandomSource
    /// Picks where the Moltin client keeps its credentials besides memory, given the session's
    /// token store; the default, nil, is the SDK's own (memory only).
    public typealias MoltinCredentialStoreFactory = @Sendable (_ tokenStore: any TokenStore) -> (any TokenStore)?

    public let name: String
    private let wrapTransport: TransportFactory
    private let wrapStore: StoreFactory
    private let wrapUserAgent: UserAgentFactory
    private let wrapClock: ClockFactory
    private let wrapRandom: RandomFactory
    private let wrapNotify: BraintreeNotifyFactory
    private let cloverRefreshMargin: TimeInterval
    private let moltinRefreshMargin: TimeInterval
    private let requestTimeout: TimeInterval
    private let cloverBaseURLPolicy: BaseURLPolicy
    private let braintreeURLPolicy: BaseURLPolicy
    private let moltinCredentialStore: MoltinCredentialStoreFactory
    private let moltinRetryAfterLimit: TimeInterval

    /// - Parameters:
    ///   - cloverRefreshMargin: how long before expiry the Clover client refreshes.
    ///   - moltinRefreshMargin: how long before expiry the Moltin client renews.
    ///   - requestTimeout: seconds, on the SDK's clock, before an unanswered request fails.
    ///   - cloverBaseURLPolicy: the base-URL policy the Clover configuration is given.
    ///   - braintreeURLPolicy: the policy the Braintree configuration judges its endpoint and the
    ///     connect URL by.
    ///   - moltinCredentialStore: where the Moltin client keeps its credentials besides memory.
    ///   - moltinRetryAfterLimit: the longest `Retry-After` the Moltin client waits out, on the
    ///     flow's clock, before one retry; 0 never waits. The default, 5 minutes, is above every
    ///     `Retry-After` the fakes send (30 and 120 s), so `flowcheck specs/` and `explore` run
    ///     the SDK's waiting and retrying code, which INV-RETRY-AFTER judges: with 0 that code
    ///     never ran there, and a client that read the header as milliseconds passed every flow.
    ///     (The SDK's own default stays 0: whether to wait is the app's decision; both conform.)
    public init(
        name: String = "FlowCheck SDK core", transport: @escaping TransportFactory = { $0 }, store: @escaping StoreFactory = { $0 },
        userAgent: @escaping UserAgentFactory = { $0 }, clock: @escaping ClockFactory = { $0 }, random: @escaping RandomFactory = { $0 },
        braintreeNotify: @escaping BraintreeNotifyFactory = { $0 }, cloverRefreshMargin: TimeInterval = 60, moltinRefreshMargin: TimeInterval = 60,
        requestTimeout: TimeInterval = 30, cloverBaseURLPolicy: BaseURLPolicy = .standard,
        braintreeURLPolicy: BaseURLPolicy = .standard,
        moltinCredentialStore: @escaping MoltinCredentialStoreFactory = { _ in nil },
        moltinRetryAfterLimit: TimeInterval = 300
    ) {
        self.moltinRetryAfterLimit = moltinRetryAfterLimit
        self.moltinCredentialStore = moltinCredentialStore
        self.cloverBaseURLPolicy = cloverBaseURLPolicy
        self.braintreeURLPolicy = braintreeURLPolicy
        self.moltinRefreshMargin = moltinRefreshMargin
        self.requestTimeout = requestTimeout
        self.name = name
        self.wrapTransport = transport
        self.wrapStore = store
        self.wrapUserAgent = userAgent
        self.wrapClock = clock
        self.wrapRandom = random
        self.wrapNotify = braintreeNotify
        self.cloverRefreshMargin = cloverRefreshMargin
    }

    public func makeSession(for context: DriverContext) async throws -> any FlowSession {
        let base = URLSessionTransport()
        let folder = context.storageDirectory.appendingPathComponent("tokens", isDirectory: true)
        let fileStore = try FileTokenStore(directory: folder)
        // The runner may arm a crash of the next write (`crashStore`); a store that cannot be
        // interrupted reports so instead. A relaunch opens the store anew over its folder.
        let wrapStore = self.wrapStore
        let crashable = CrashableStore(wrapStore(fileStore), reopen: { wrapStore(try FileTokenStore(directory: folder)) })
        let store: any TokenStore = crashable
        let clock = wrapClock(context.clock)
        // A request the server never answers ends on the SDK's clock, as in an app: with the
        // flow's virtual clock that costs no real time.
        // The tap sits at the network boundary, under everything the SDK (or a broken
        // variant's transport) does, and sees every request that leaves.
        let tap = SentRequestTap(base: base)
        let transport = DeadlineTransport(base: wrapTransport(tap), clock: clock, timeout: requestTimeout)
        let random = wrapRandom(SystemRandomSource())
        let userAgent = wrapUserAgent(WindowUserAgent(window: context.browser))
        switch context.provider {
        case .moltin:
            return TappedSession(FileBackedSession(try MoltinSession(context: context, transport: transport, store: store, clock: clock, refreshMargin: moltinRefreshMargin, retryAfterLimit: moltinRetryAfterLimit, credentialStore: moltinCredentialStore(store), onClose: { base.invalidate() }), store: fileStore, crashable: crashable), tap: tap)
        case .clover:
            return TappedSession(FileBackedSession(CloverSession(context: context, transport: transport, store: store, userAgent: userAgent, clock: clock, random: random, refreshMargin: cloverRefreshMargin, baseURLPolicy: cloverBaseURLPolicy, onClose: { base.invalidate() }), store: fileStore, crashable: crashable), tap: tap)
        case .clever:
            return TappedSession(FileBackedSession(CleverSession(context: context, transport: transport, store: store, userAgent: userAgent, random: random, onClose: { base.invalidate() }), store: fileStore, crashable: crashable), tap: tap)
        case .braintree:
            return TappedSession(BraintreeSession(context: context, transport: transport, userAgent: userAgent, notify: wrapNotify, urlPolicy: braintreeURLPolicy, onClose: { base.invalidate() }), tap: tap)
        default:
            // Providers are an open set: one registered after this driver was written is a
            // harness error naming it, never a crash.
            base.invalidate()
            throw DriverError("the \(name) driver has no session for the provider \"\(context.provider.rawValue)\"")
        }
    }
}

/// A session whose SDK keeps its tokens in a ``FileTokenStore``: it tells the runner where the
/// store's files are (the runner measures them itself). Braintree's session has no store and
/// is not wrapped, so its `storeFiles` checks would be skipped.
final class FileBackedSession: FlowSession {
    private let inner: any FlowSession
    private let store: FileTokenStore
    private let crashable: CrashableStore

    init(_ inner: any FlowSession, store: FileTokenStore, crashable: CrashableStore) {
        self.inner = inner
        self.store = store
        self.crashable = crashable
    }

    func armStoreCrash(_ point: StoreCrashPoint) async throws -> StoreCrashSupport { crashable.arm(point) }

    func perform(_ call: AppCall) async throws -> CallOutcome {
        // A relaunch is a new process: it opens the store over its folder again.
        if call.name == "relaunch" { try crashable.reopen() }
        return try await inner.perform(call)
    }

    func storeContents() async throws -> [String: String] { try await inner.storeContents() }
    func close() async { await inner.close() }

    func storeLocation() async throws -> StoreLocation? {
        // The items the store lists, by the file each is kept in: whatever else lies in the
        // folder is not the store's, and the runner judges it.
        StoreLocation(directory: store.directory, files: try store.keys().map { try store.fileName(forKey: $0) })
    }
}

/// The SDK's external user agent, wired to the runner's browser window.
public struct WindowUserAgent: ExternalUserAgent {
    public let window: BrowserWindow

    public init(window: BrowserWindow) {
        self.window = window
    }

    public func open(_ url: URL) async throws {
        window.open(url)
    }

    public func dismiss() async {
        window.dismiss()
    }
}

