import Foundation
import FlowCheckTestLanes
import Testing
import FlowCheckProviders
import FlowCheckCoreDriver
import FlowCheckRunner
import FlowCheckSpec

/// The committed specs pass against our SDK core, and each one fails against an SDK that
/// breaks what it checks: a spec no broken SDK can fail would be decoration.
@Suite(.integration, .timeLimit(.minutes(20)))
struct SpecsEarnTheirPlaceTests {
    static let specsFolder = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("specs").path

    static func specs() throws -> [FlowSpec] {
        let loaded = try SpecLoader.standard.load(paths: [specsFolder])
        #expect(loaded.diagnostics.isEmpty, "\(loaded.diagnostics)")
        return loaded.specs
    }

    static func run(_ ids: [String], with driver: any FlowDriver) async throws -> [String: FlowResult] {
        let specs = try specs().filter { ids.contains($0.id) }
        #expect(specs.count == ids.count, "missing specs among \(ids)")
        let results = await FlowRunner(driver: driver).run(specs)
        return Dictionary(uniqueKeysWithValues: results.map { ($0.id, $0) })
    }

    @Test func everySpecPassesAgainstTheSDKCore() async throws {
        let specs = try Self.specs()
        let results = await FlowRunner(driver: CoreSDKDriver()).run(specs)
        for result in results {
            #expect(result.status == .passed, "\(result.id): \(result.failures.map(\.message)) \(result.errorMessage ?? "")")
        }
        #expect(results.count == specs.count)
    }

    struct Variant: CustomTestStringConvertible, Sendable {
        let name: String
        let driver: any FlowDriver
        /// The specs this defect must make fail.
        let mustFail: [String]
        var testDescription: String { name }
    }

    static let variants: [Variant] = [
        // Moltin
        Variant(name: "the tutorial's client, as written", driver: TutorialMoltinDriver(), mustFail: ["MLT-ENCODING", "MLT-EXPIRED", "MLT-NETFAIL", "MLT-REFRESH"]),
        Variant(name: "store ignores writes", driver: BrokenVariants.forgetfulStore, mustFail: ["MLT-AUTH", "MLT-BADAUTH", "MLT-PRODUCTS"]),
        Variant(name: "auth clobbers the stored token", driver: BrokenVariants.clobberingAuth, mustFail: ["MLT-BADAUTH"]),
        Variant(name: "auth error message lost", driver: BrokenVariants.genericAuthError, mustFail: ["MLT-BADAUTH"]),
        Variant(name: "refresh sent as client_credentials", driver: BrokenVariants.refreshIsReauth, mustFail: ["MLT-REFRESH"]),
        Variant(name: "store ignores deletes", driver: BrokenVariants.undeletableStore, mustFail: ["MLT-DELETE"]),
        Variant(name: "no Authorization header", driver: BrokenVariants.noBearer, mustFail: ["MLT-PRODUCTS", "MLT-AUTH"]),
        Variant(name: "URL-host form encoding", driver: BrokenVariants.hostEncoding, mustFail: ["MLT-ENCODING"]),
        Variant(name: "retries products until it works", driver: BrokenVariants.retriesForever, mustFail: ["MLT-EXPIRED"]),
        Variant(name: "clears the store on any error", driver: BrokenVariants.clearsStoreOnError, mustFail: ["MLT-NETFAIL", "MLT-BADAUTH"]),
        // Clover
        Variant(name: "PKCE plain instead of S256", driver: CloverBrokenVariants.pkcePlain, mustFail: ["CLV-FULL-1", "CLV-FULL-5", "CLV-API-1"]),
        Variant(name: "authorize URL without redirect_uri", driver: CloverBrokenVariants.noRedirectURI, mustFail: ["CLV-FULL-1", "CLV-FULL-6"]),
        Variant(name: "verifier not sent", driver: CloverBrokenVariants.verifierNotSent, mustFail: ["CLV-FULL-1", "CLV-PART-1"]),
        Variant(name: "the app secret sent", driver: CloverBrokenVariants.appSecretSent, mustFail: ["CLV-FULL-1", "CLV-PART-1"]),
        Variant(name: "state not checked", driver: CloverBrokenVariants.stateNotChecked, mustFail: ["CLV-FULL-8"]),
        Variant(name: "client_id not checked", driver: CloverBrokenVariants.clientNotChecked, mustFail: ["CLV-FULL-9"]),
        Variant(name: "an expired token used (no refresh)", driver: CloverBrokenVariants.expiredTokenUsed, mustFail: ["CLV-FULL-3", "CLV-FULL-4", "CLV-PART-5", "CLV-PART-6"]),
        Variant(name: "a refresh on every call", driver: CloverBrokenVariants.refreshEveryCall, mustFail: ["CLV-FULL-2", "CLV-PART-2"]),
        Variant(name: "the rotated refresh token not stored", driver: CloverBrokenVariants.rotatedRefreshNotStored, mustFail: ["CLV-FULL-3", "CLV-FULL-4"]),
        Variant(name: "callback fired twice", driver: CloverBrokenVariants.callbackTwice, mustFail: ["CLV-FULL-1", "CLV-NONE-2", "CLV-API-7"]),
        Variant(name: "callback never fired", driver: CloverBrokenVariants.callbackNever, mustFail: ["CLV-FULL-1", "CLV-FULL-5", "CLV-PART-1", "CLV-NONE-2"]),
        Variant(name: "token not persisted across a relaunch", driver: CloverBrokenVariants.notPersisted, mustFail: ["CLV-FULL-2", "CLV-FULL-3", "CLV-PART-2"]),
        Variant(name: "logout that keeps the token", driver: CloverBrokenVariants.logoutKeepsToken, mustFail: ["CLV-API-1", "CLV-FULL-5"]),
        Variant(name: "No OAuth mode that refreshes", driver: CloverBrokenVariants.noOAuthRefreshes, mustFail: ["CLV-NONE-1"]),
        Variant(name: "two concurrent calls cause two refreshes", driver: CloverBrokenVariants.twoRefreshes, mustFail: ["CLV-FULL-4"]),
        Variant(name: "isLoggedIn true too early", driver: CloverBrokenVariants.isLoggedInLies, mustFail: ["CLV-FULL-6", "CLV-FULL-7", "CLV-NONE-3"]),
        Variant(name: "a failed exchange clears the store", driver: BrokenVariants.clearsStoreOnError, mustFail: ["CLV-PART-3"]),
        Variant(name: "a network call with an empty store", driver: CloverBrokenVariants.networkWithEmptyStore, mustFail: ["CLV-PART-4"]),
        Variant(name: "remove always true", driver: CloverBrokenVariants.removeAlwaysTrue, mustFail: ["CLV-API-2"]),
        Variant(name: "accepts http:// anywhere", driver: CloverBrokenVariants.acceptsPlainHTTP, mustFail: ["CLV-API-3"]),
        // Clever and Braintree
        Variant(name: "state not stored or not compared", driver: CleverBraintreeBrokenVariants.stateNotCompared, mustFail: ["CLE-STATE-MISMATCH"]),
        Variant(name: "one state reused across logins", driver: CleverBraintreeBrokenVariants.stateReused, mustFail: ["CLE-STATE-FRESH"]),
        Variant(name: "a state too short for 128 bits", driver: CleverBraintreeBrokenVariants.stateTooShort, mustFail: ["CLE-LOGIN", "CLE-STATE-REPLAY"]),
        Variant(name: "a Basic header carrying a secret", driver: CleverBraintreeBrokenVariants.basicWithSecret, mustFail: ["CLE-LOGIN"]),
        Variant(name: "a Basic header missing the colon", driver: CleverBraintreeBrokenVariants.basicWithoutColon, mustFail: ["CLE-LOGIN"]),
        Variant(name: "a client id not form-encoded before base64", driver: CleverBraintreeBrokenVariants.basicNotFormEncoded, mustFail: ["CLE-CLIENT-AUTH"]),
        Variant(name: "a client secret sent from the device", driver: CleverBraintreeBrokenVariants.secretFromDevice, mustFail: ["BT-SECRET", "BT-CONNECT"]),
        Variant(name: "a URL handler that accepts any scheme or host", driver: CleverBraintreeBrokenVariants.anySchemeOrHost, mustFail: ["BT-UNTRUSTED"]),
        Variant(name: "a handler that posts twice", driver: CleverBraintreeBrokenVariants.postsTwice, mustFail: ["BT-CONNECT", "BT-DENIED", "BT-CONNECT-RDNS"]),
        Variant(name: "a token exchanged on the device", driver: CleverBraintreeBrokenVariants.tokenOnDevice, mustFail: ["BT-CONNECT", "BT-SECRET"]),
        Variant(name: "a store that ignores writes", driver: BrokenVariants.forgetfulStore, mustFail: ["CLE-LOGIN"]),
        Variant(name: "authorize URL without redirect_uri", driver: CloverBrokenVariants.noRedirectURI, mustFail: ["CLE-REDIRECT", "CLE-LOGIN"]),
        // Fault flows
        Variant(name: "clears the store on any error", driver: BrokenVariants.clearsStoreOnError, mustFail: ["FLT-RESET", "FLT-STALL", "FLT-HTML5XX", "FLT-TRUNCATED"]),
        Variant(name: "follows redirects from API calls", driver: FaultBrokenVariants.followsRedirects, mustFail: ["FLT-REDIRECT-LOOP"]),
        Variant(name: "reads truncated JSON as an empty list", driver: FaultBrokenVariants.truncatedIsEmpty, mustFail: ["FLT-TRUNCATED"]),
        Variant(name: "a failed token call clears the store", driver: FaultBrokenVariants.failedTokenCallClearsStore, mustFail: ["FLT-RESET", "FLT-STALL", "FLT-HTML5XX", "FLT-TRUNCATED", "FLT-REDIRECT-LOOP"]),
        Variant(name: "every error reported as a server error", driver: FaultBrokenVariants.oneErrorKind("serverError"), mustFail: ["FLT-RESET", "FLT-STALL", "FLT-TRUNCATED", "FLT-REDIRECT-LOOP"]),
        Variant(name: "every error reported as a transport error", driver: FaultBrokenVariants.oneErrorKind("transport"), mustFail: ["FLT-HTML5XX", "FLT-TRUNCATED", "FLT-REDIRECT-LOOP"]),
        // Issue 11, part i11c: Clever denials, one client-authentication method per token call,
        // trusted-source edges, loopback look-alikes, the connect URL a merchant's server hands out
        Variant(name: "loopback judged by string prefix", driver: EdgeBrokenVariants.loopbackByPrefix, mustFail: ["CLV-API-4"]),
        Variant(name: "an error redirect judged before its state", driver: EdgeBrokenVariants.errorBeforeState, mustFail: ["CLE-DENIED"]),
        Variant(name: "a denial leaves the browser open", driver: EdgeBrokenVariants.denialLeavesBrowserOpen, mustFail: ["CLE-DENIED"]),
        Variant(name: "Moltin: a Basic header alongside the form credentials", driver: EdgeBrokenVariants.moltinBasicAlongsideForm, mustFail: ["MLT-CLIENT-AUTH"]),
        Variant(name: "Clover: a Basic header alongside the JSON client_id", driver: EdgeBrokenVariants.cloverBasicAlongsideJSON, mustFail: ["CLV-FULL-10"]),
        Variant(name: "Clever: token-request headers accumulate across logins", driver: EdgeBrokenVariants.cleverHeadersAccumulate, mustFail: ["CLE-CLIENT-AUTH"]),
        Variant(name: "a return URL's host checked with hasSuffix", driver: EdgeBrokenVariants.hostBySuffix, mustFail: ["BT-TRUSTED-EDGES"]),
        Variant(name: "credential-like parameters on a return URL ignored", driver: EdgeBrokenVariants.credentialsIgnored, mustFail: ["BT-TRUSTED-EDGES"]),
        Variant(name: "a return URL trusted by its scheme only", driver: EdgeBrokenVariants.schemeOnly, mustFail: ["BT-RDNS-HOST"]),
        Variant(name: "Clever: a redirect host checked with hasSuffix", driver: EdgeBrokenVariants.cleverHostBySuffix, mustFail: ["CLE-REDIRECT-HOST"]),
        Variant(name: "Braintree browser dismissed only on connect", driver: ReviewBrokenVariants.braintreeDismissOnlyOnConnect, mustFail: ["BT-DENIED"]),
        Variant(name: "opens any connect URL the backend hands out", driver: EdgeBrokenVariants.opensAnyConnectURL, mustFail: ["BT-CONNECT-URL"]),
        // Issue 11, part a: renewal edges (expiry boundaries, faults during renewal, refresh-token
        // expiry, a refused updateToken, remembered credentials, refused versus down)
        Variant(name: "a token trusted 2 minutes past its expiry", driver: RenewalBrokenVariants.graceAfterExpiry, mustFail: ["CLV-FULL-11", "MLT-EXPIRY-EDGE", "MLT-RELAUNCH-EDGE"]),
        Variant(name: "no expiry handling (renewal edges)", driver: CloverBrokenVariants.expiredTokenUsed, mustFail: ["CLV-FULL-11", "MLT-EXPIRY-EDGE", "MLT-CREDS"]),
        Variant(name: "any failed token call read as invalid_grant", driver: RenewalBrokenVariants.anyTokenFailureIsRefusal, mustFail: ["CLV-FULL-12", "MLT-RENEW-FAULTS", "CLV-FULL-14", "MLT-RATELIMIT"]),
        Variant(name: "invalid_grant read as transient", driver: RenewalBrokenVariants.invalidGrantIsTransient, mustFail: ["CLV-FULL-14", "MLT-RATELIMIT", "CLV-FULL-5"]),
        Variant(name: "a failed refresh clears the store", driver: BrokenVariants.clearsStoreOnError, mustFail: ["CLV-FULL-12", "CLV-FULL-14", "MLT-RENEW-FAULTS"]),
        Variant(name: "refresh token expiry not stored", driver: RenewalBrokenVariants.refreshExpiryNotStored, mustFail: ["CLV-FULL-13"]),
        Variant(name: "updateToken stores before verifying", driver: RenewalBrokenVariants.updateTokenStoredBeforeCheck, mustFail: ["CLV-NONE-4"]),
        Variant(name: "credentials of a failed Auth remembered", driver: RenewalBrokenVariants.failedAuthCredentialsKept, mustFail: ["MLT-CREDS"]),
        // Issue 11, part i11b: fresh PKCE and state, redirect edges, dismissal, logout during a login
        Variant(name: "PKCE verifier reused across logins", driver: RedirectBrokenVariants.verifierReused, mustFail: ["CLV-FULL-15"]),
        Variant(name: "state kept from the previous login", driver: RedirectBrokenVariants.stateKept, mustFail: ["CLV-FULL-15"]),
        Variant(name: "state compared without case", driver: RedirectBrokenVariants.stateCaseInsensitive, mustFail: ["CLV-FULL-16"]),
        Variant(name: "state compared by prefix", driver: RedirectBrokenVariants.statePrefix, mustFail: ["CLV-FULL-16"]),
        Variant(name: "state compared over the received length", driver: RedirectBrokenVariants.stateReceivedLength, mustFail: ["CLV-FULL-16"]),
        Variant(name: "an empty state taken as no state", driver: RedirectBrokenVariants.emptyStateIsNoState, mustFail: ["CLV-FULL-16"]),
        Variant(name: "error redirect handled before the state check", driver: RedirectBrokenVariants.errorBeforeState, mustFail: ["CLV-FULL-17"]),
        Variant(name: "redirect URI matched by prefix", driver: RedirectBrokenVariants.redirectPrefix, mustFail: ["CLV-FULL-17"]),
        Variant(name: "logout with nothing stored keeps the pending login", driver: RedirectBrokenVariants.logoutKeepsPendingLogin, mustFail: ["CLV-API-5"]),
        Variant(name: "browser dismissed only on success", driver: RedirectBrokenVariants.dismissOnlyOnSuccess, mustFail: ["CLV-FULL-18", "CLE-DISMISS"]),
        // i11d: concurrent app steps
        Variant(name: "a refresh in flight survives a logout", driver: ConcurrencyBrokenVariants.refreshSurvivesLogout, mustFail: ["CLV-FULL-19", "CLV-FULL-20"]),
        Variant(name: "a renewal per call, not shared", driver: ConcurrencyBrokenVariants.renewalPerCall, mustFail: ["MLT-SHARED-RENEWAL"]),
        Variant(name: "a stale refresh refusal ends the newer session", driver: ConcurrencyBrokenVariants.staleRefusalEndsSession, mustFail: ["CLV-FULL-22", "CLV-FULL-23"]),
        // i11f: store inspection
        Variant(name: "token file rewritten in place", driver: StoreBrokenVariants.rewritesInPlace, mustFail: ["MLT-STORE-FILES", "CLV-FULL-21"]),
        Variant(name: "token file mode 0644", driver: StoreBrokenVariants.worldReadable, mustFail: ["MLT-STORE-FILES", "CLV-FULL-21"]),
        Variant(name: "temporary token file left behind", driver: StoreBrokenVariants.leavesTemporaryFile, mustFail: ["MLT-STORE-FILES", "CLV-FULL-21"]),
        // Issue 11, part i11e: distinct web and API origins for Clover
        Variant(name: "custom environment uses the web URL for the API", driver: OriginBrokenVariants.apiCallsToWebHost, mustFail: ["CLV-API-6", "CLV-FULL-1"]),
        Variant(name: "merchant call built on the web base URL", driver: OriginBrokenVariants.merchantCallToWebHost, mustFail: ["CLV-API-6", "CLV-FULL-1"]),
        Variant(name: "custom environment opens the login page on the API host", driver: OriginBrokenVariants.authorizeOnAPIHost, mustFail: ["CLV-API-6", "CLV-FULL-1"]),
        // i11g: a crash between write and rename
        Variant(name: "token file rewritten in place, torn by a crash", driver: StoreCrashBrokenVariants.rewritesInPlace, mustFail: ["MLT-STORE-CRASH"]),
        // review fixes
        Variant(name: "Clever redirect reads only code and state", driver: ReviewBrokenVariants.cleverExtraCredentialsIgnored, mustFail: ["CLE-REDIRECT-HOST"]),
        Variant(name: "Braintree browser dismissed only on connect", driver: ReviewBrokenVariants.braintreeDismissOnlyOnConnect, mustFail: ["BT-DENIED"]),
        // Written from explore's findings (issue 23)
        Variant(name: "a token the store could not save reported as a login", driver: ExploreFoundBrokenVariants.storeFailureIsALogin, mustFail: ["CLE-STORE-CRASH"]),
        Variant(name: "a failed Connect ends the open one", driver: ExploreFoundBrokenVariants.failedConnectEndsTheOpenOne, mustFail: ["BT-CONNECT-AGAIN-FAILS"]),
        Variant(name: "the stored token deleted before the new one is written", driver: ExploreFoundBrokenVariants.deleteBeforeWrite, mustFail: ["MLT-STORE-CRASH-RENEW"]),
        Variant(name: "setupNone keeps the stored token", driver: ExploreFoundBrokenVariants.setupNoneKeepsStoredToken, mustFail: ["CLV-NONE-5"]),
        Variant(name: "a failed return keeps the connect", driver: ExploreFoundBrokenVariants.failedReturnKeepsConnect, mustFail: ["BT-DENIED"]),
        // Found when explore ran with a core that waits out Retry-After
        Variant(name: "the same request resent after a Retry-After wait, its token expired meanwhile", driver: BrokenVariants.ResendAfterWaitDriver(), mustFail: ["MLT-RETRY-EXPIRY"]),
    ]

    @Test(arguments: variants)
    func brokenSDKFails(_ variant: Variant) async throws {
        let results = try await Self.run(variant.mustFail, with: variant.driver)
        for id in variant.mustFail {
            let result = try #require(results[id])
            // Failed, not errored: the spec caught the SDK, the harness did not break.
            #expect(result.status == .failed, "\(id) against \(variant.name): \(result.status) \(result.errorMessage ?? "")")
        }
    }

    /// Every committed spec is in at least one variant's list.
    @Test func everySpecHasAVariantThatBreaksIt() throws {
        let covered = Set(Self.variants.flatMap(\.mustFail))
        for spec in try Self.specs() {
            #expect(covered.contains(spec.id), "no broken SDK shows that \(spec.id) can fail: add a Variant to SpecsEarnTheirPlaceTests.variants whose mustFail lists \(spec.id), with a broken SDK that fails it (docs/contributing.md, \"Adding a spec\")")
        }
    }
}
