import Foundation

/// The browser as the SDK sees it: a driver forwards its SDK's external-user-agent calls here
/// (`open` when the SDK starts a login, `dismiss` when it is done), and the runner's scripted
/// browser then plays the user on whatever was opened.
public final class BrowserWindow: @unchecked Sendable {
    private let lock = NSLock()
    private var openedURLs: [URL] = []
    private var dismissCount = 0
    /// Whether the last thing the SDK did with the window was to open a page (not dismiss it).
    private var showing = false

    public init() {}

    /// The SDK asks the browser to show `url` (AppAuth's `presentExternalUserAgentRequest`).
    public func open(_ url: URL) {
        lock.lock()
        openedURLs.append(url)
        showing = true
        lock.unlock()
    }

    /// The SDK closes the browser.
    public func dismiss() {
        lock.lock()
        dismissCount += 1
        showing = false
        lock.unlock()
    }

    /// Every URL opened so far, in order.
    public var opened: [URL] {
        lock.lock()
        defer { lock.unlock() }
        return openedURLs
    }

    /// How often the SDK dismissed the browser.
    public var dismissals: Int {
        lock.lock()
        defer { lock.unlock() }
        return dismissCount
    }

    /// Whether a page the SDK opened is still showing: it opened one after its last dismissal.
    public var isShowing: Bool {
        lock.lock()
        defer { lock.unlock() }
        return showing
    }
}
