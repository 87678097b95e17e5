import Foundation
import FlowCheckSDK

/// A fake browser: records every URL it is asked to open and every dismissal, and can be told to
/// fail. The test plays the user's part itself (`StubClover.authorize`).
///
/// ```swift
/// let browser = RecordingUserAgent()
/// _ = try await sdk.setup(configuration: configuration)          // .loginStarted
/// let redirect = try server.authorize(try #require(browser.openedURLs.last))
/// try await sdk.receivedOAuthCodeOrToken(redirect)
/// #expect(browser.dismissCount == 1)
/// ```
final class RecordingUserAgent: ExternalUserAgent, @unchecked Sendable {
    struct Refused: Error {}

    private let lock = NSLock()
    private var opened: [URL] = []
    private var dismissals = 0
    private var failure: (any Error)?

    var openedURLs: [URL] { locked { opened } }

    var dismissCount: Int { locked { dismissals } }

    /// Makes every later `open` throw `error` (nil restores success).
    func fail(with error: (any Error)?) {
        locked { failure = error }
    }

    func open(_ url: URL) async throws {
        try locked {
            opened.append(url)
            if let failure { throw failure }
        }
    }

    func dismiss() async {
        locked { dismissals += 1 }
    }

    private func locked<T>(_ body: () throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }
}
