import FlowCheckFakeServer
import Foundation
import FlowCheckSDK

/// A fake browser: records every URL it is asked to open and every dismissal, and can be told to
/// fail. It loads nothing: the test plays the user's part itself, e.g. with ``FakeBrowserUser``.
///
/// ```swift
/// let browser = RecordingUserAgent()
/// _ = try await sdk.setup(configuration: configuration)          // .loginStarted
/// let user = FakeBrowserUser(transport: connection.transport)
/// let redirect = try await user.complete(try #require(browser.openedURLs.last),
///                                        .logIn(email: "e@example.com", password: "pw"))
/// try await sdk.receivedOAuthCodeOrToken(redirect)
/// #expect(browser.dismissCount == 1)
/// ```
public final class RecordingUserAgent: ExternalUserAgent, Sendable {
    /// An error for `fail(with:)`: the browser could not be opened.
    public struct Refused: Error {
        /// Creates the error.
        public init() {}
    }

    private struct State {
        var opened: [URL] = []
        var dismissals = 0
        var failure: (any Error)?
    }

    private let state = Locked(State())

    /// Creates a browser that opens everything.
    public init() {}

    /// Every URL the SDK asked to open, in order, failed attempts included.
    public var openedURLs: [URL] { state.withLock { $0.opened } }

    /// How many times the SDK dismissed the browser.
    public var dismissCount: Int { state.withLock { $0.dismissals } }

    /// Makes every later `open` throw `error` (nil restores success).
    public func fail(with error: (any Error)?) {
        state.withLock { $0.failure = error }
    }

    /// Records `url`; throws the error set by `fail(with:)`, if any.
    public func open(_ url: URL) async throws {
        let failure = state.withLock { state -> (any Error)? in
            state.opened.append(url)
            return state.failure
        }
        if let failure { throw failure }
    }

    /// Records a dismissal.
    public func dismiss() async {
        state.withLock { $0.dismissals += 1 }
    }
}
