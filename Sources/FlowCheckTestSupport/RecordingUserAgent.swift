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
public final class RecordingUserAgent: ExternalUserAgent, @unchecked Sendable {
    // `@unchecked`: all mutable state is behind `lock`.
    /// An error for `fail(with:)`: the browser could not be opened.
    public struct Refused: Error {
        /// Creates the error.
        public init() {}
    }

    private let lock = NSLock()
    private var opened: [URL] = []
    private var dismissals = 0
    private var failure: (any Error)?

    /// Creates a browser that opens everything.
    public init() {}

    /// Every URL the SDK asked to open, in order, failed attempts included.
    public var openedURLs: [URL] { locked { opened } }

    /// How many times the SDK dismissed the browser.
    public var dismissCount: Int { locked { dismissals } }

    /// Makes every later `open` throw `error` (nil restores success).
    public func fail(with error: (any Error)?) {
        locked { failure = error }
    }

    /// Records `url`; throws the error set by `fail(with:)`, if any.
    public func open(_ url: URL) async throws {
        try locked {
            opened.append(url)
            if let failure { throw failure }
        }
    }

    /// Records a dismissal.
    public func dismiss() async {
        locked { dismissals += 1 }
    }

    private func locked<T>(_ body: () throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }
}
