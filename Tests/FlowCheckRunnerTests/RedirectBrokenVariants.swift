import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import FlowCheckCoreDriver
import FlowCheckRunner
import FlowCheckSDK

/// Deliberately broken SDKs for the flows off the happy path of a browser login (issue 11:
/// fresh PKCE and state per login, redirect edges, dismissal on every ending, logout during a
/// login). Each is the real SDK core with one defect a shipping SDK could have, built from its
/// random source, its browser seam, or one app-level behaviour put in front of it.
enum RedirectBrokenVariants {
    // MARK: - Fresh PKCE and state per login

    /// A random source that hands out its first draw again for every draw of one parity: the
    /// SDK draws a login's verifier, then its state, so parity 0 is "the verifier made once (a
    /// lazy property) and reused for every login", parity 1 "the state made once and kept".
    final class RepeatingDraws: RandomSource, @unchecked Sendable {
        let base: any RandomSource
        let parity: Int
        private let lock = NSLock()
        private var count = 0
        private var kept: [UInt8]?

        init(base: any RandomSource, parity: Int) {
            self.base = base
            self.parity = parity
        }

        func bytes(_ count: Int) -> [UInt8] {
            lock.lock()
            defer { lock.unlock() }
            let index = self.count
            self.count += 1
            guard index % 2 == parity else { return base.bytes(count) }
            if let kept, kept.count == count { return kept }
            let fresh = base.bytes(count)
            kept = fresh
            return fresh
        }
    }

    /// The PKCE verifier generated once per SDK instance and reused for every login.
    static let verifierReused: any FlowDriver = CoreSDKDriver(name: "PKCE verifier reused across logins", random: { RepeatingDraws(base: $0, parity: 0) })

    /// The state of the first login kept for every later one.
    static let stateKept: any FlowDriver = CoreSDKDriver(name: "state kept from the previous login", random: { RepeatingDraws(base: $0, parity: 1) })

    // MARK: - Redirect edges

    /// The state the SDK last sent, from the authorize URL it opened.
    static func sentState(_ context: DriverContext) -> String? {
        guard let opened = context.browser.opened.last else { return nil }
        return URLComponents(url: opened, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "state" }?.value
    }

    /// A redirect judged with a looser state comparison: when `accepts(received, sent)` holds,
    /// the SDK behaves as if the state matched (the redirect reaches the real core with the
    /// sent state in place).
    static func stateCompared(_ name: String, _ accepts: @escaping @Sendable (_ received: String, _ sent: String) -> Bool) -> any FlowDriver {
        BrokenVariants.overriding(name) { call, inner, context in
            guard call.name == "receiveRedirect", let sent = sentState(context), let url = call.arguments["url"],
                  let components = URLComponents(string: url),
                  let received = components.queryItems?.first(where: { $0.name == "state" })?.value,
                  received != sent, accepts(received, sent) else { return nil }
            let fixed = CloverBrokenVariants.query(components) { $0.map { $0.name == "state" ? URLQueryItem(name: "state", value: sent) : $0 } }
            return try await inner.perform(AppCall(name: call.name, arguments: ["url": fixed.string ?? url]))
        }
    }

    /// `received.caseInsensitiveCompare(sent) == .orderedSame`.
    static let stateCaseInsensitive = stateCompared("state compared without case") { $0.lowercased() == $1.lowercased() }

    /// `received.hasPrefix(sent)`: a longer state passes.
    static let statePrefix = stateCompared("state compared by prefix") { $0.hasPrefix($1) }

    /// `strncmp(received, sent, strlen(received)) == 0`: a shorter (or empty) state passes.
    static let stateReceivedLength = stateCompared("state compared over the received length") { $1.hasPrefix($0) }

    /// `if let state = params["state"], !state.isEmpty { guard state == sent }`: an empty state
    /// counts as none, and none is not checked.
    static let emptyStateIsNoState = stateCompared("an empty state taken as no state") { received, _ in received.isEmpty }

    /// An `error` redirect handled before the state is checked: any page that opens the
    /// redirect URI with `error=` cancels the login as an authorization error.
    static let errorBeforeState = BrokenVariants.overriding("error redirect handled before the state check") { call, inner, context in
        guard call.name == "receiveRedirect", let sent = sentState(context), let url = call.arguments["url"],
              let components = URLComponents(string: url), components.queryItems?.contains(where: { $0.name == "error" }) == true else { return nil }
        let fixed = CloverBrokenVariants.query(components) { $0.filter { $0.name != "state" } + [URLQueryItem(name: "state", value: sent)] }
        return try await inner.perform(AppCall(name: call.name, arguments: ["url": fixed.string ?? url]))
    }

    /// The redirect matched by a prefix of the redirect URI (`url.absoluteString.hasPrefix(redirectURI)`),
    /// so `…/oauth/callback-x` counts as `…/oauth/callback`.
    static let redirectPrefix = BrokenVariants.overriding("redirect URI matched by prefix") { call, inner, context in
        guard call.name == "receiveRedirect", let opened = context.browser.opened.last,
              let redirectURI = URLComponents(url: opened, resolvingAgainstBaseURL: false)?.queryItems?.first(where: { $0.name == "redirect_uri" })?.value,
              let expected = URLComponents(string: redirectURI), let url = call.arguments["url"], var components = URLComponents(string: url),
              components.path != expected.path, components.path.hasPrefix(expected.path) else { return nil }
        components.path = expected.path
        return try await inner.perform(AppCall(name: call.name, arguments: ["url": components.string ?? url]))
    }

    // MARK: - Logout during a login

    /// `logout` that returns early when nothing is stored (`guard existed else { return }`
    /// before the pending login is cleared): a login in progress survives it.
    static let logoutKeepsPendingLogin = BrokenVariants.overriding("logout with nothing stored keeps the pending login") { call, inner, _ in
        guard call.name == "logout", try await inner.storeContents().isEmpty else { return nil }
        return .ok([:])
    }

    // MARK: - Dismissal on every ending

    /// A browser seam whose dismissals can be held back while a redirect is handled.
    final class HeldDismissals: ExternalUserAgent, @unchecked Sendable {
        let base: any ExternalUserAgent
        private let lock = NSLock()
        private var holding = false
        private var held = 0

        init(base: any ExternalUserAgent) {
            self.base = base
        }

        func open(_ url: URL) async throws { try await base.open(url) }

        func dismiss() async {
            let forward = lock.withLock { () -> Bool in
                if holding { held += 1 }
                return !holding
            }
            if forward { await base.dismiss() }
        }

        func hold() { lock.withLock { holding = true; held = 0 } }

        /// Ends holding; forwards what was held when `forward`, drops it otherwise.
        func release(forward: Bool) async {
            let count = lock.withLock { () -> Int in
                holding = false
                defer { held = 0 }
                return held
            }
            if forward { for _ in 0..<count { await base.dismiss() } }
        }
    }

    /// Dismisses the browser only when the login succeeds (the dismiss call sits after the
    /// token is stored, and every error path returns before it).
    struct DismissOnlyOnSuccess: FlowDriver {
        var name: String { "browser dismissed only on success" }

        func makeSession(for context: DriverContext) async throws -> any FlowSession {
            let seam = SeamBox<HeldDismissals?>(nil)
            let core = CoreSDKDriver(name: name, userAgent: { base in
                let held = HeldDismissals(base: base)
                seam.withLock { $0 = held }
                return held
            })
            let inner = try await core.makeSession(for: context)
            return BrokenVariants.OverridingSession(inner: inner, context: context) { call, inner, _ in
                guard call.name == "receiveRedirect", let held = seam.withLock({ $0 }) else { return nil }
                held.hold()
                do {
                    let outcome = try await inner.perform(call)
                    if case .ok = outcome { await held.release(forward: true) } else { await held.release(forward: false) }
                    return outcome
                } catch {
                    await held.release(forward: false)
                    throw error
                }
            }
        }
    }

    static let dismissOnlyOnSuccess: any FlowDriver = DismissOnlyOnSuccess()
}

/// A value behind a lock, for the test doubles above.
final class SeamBox<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    func withLock<T>(_ body: (inout Value) -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body(&value)
    }
}
