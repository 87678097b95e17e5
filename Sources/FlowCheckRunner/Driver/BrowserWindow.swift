import Foundation
import FlowCheckFakeServer

/// The browser as the SDK sees it: a driver forwards its SDK's external-user-agent calls here
/// (`open` when the SDK starts a login, `dismiss` when it is done), and the runner's scripted
/// browser then plays the user on whatever was opened.
public final class BrowserWindow: Sendable {
    private struct State {
        var openedURLs: [URL] = []
        var dismissCount = 0
        /// Whether the last thing the SDK did with the window was to open a page (not dismiss it).
        var showing = false
    }

    private let state = Locked(State())

    public init() {}

    /// The SDK asks the browser to show `url` (AppAuth's `presentExternalUserAgentRequest`).
    public func open(_ url: URL) {
        state.withLock { state in
            state.openedURLs.append(url)
            state.showing = true
        }
    }

    /// The SDK closes the browser.
    public func dismiss() {
        state.withLock { state in
            state.dismissCount += 1
            state.showing = false
        }
    }

    /// Every URL opened so far, in order.
    public var opened: [URL] {
        state.withLock { $0.openedURLs }
    }

    /// How often the SDK dismissed the browser.
    public var dismissals: Int {
        state.withLock { $0.dismissCount }
    }

    /// Whether a page the SDK opened is still showing: it opened one after its last dismissal.
    public var isShowing: Bool {
        state.withLock { $0.showing }
    }
}
