/// The keys of an `expect.browser` object, in the order they run and are narrated: what the
/// SDK opened, the page the browser loaded, then where it was sent next.
public enum BrowserCheckKind: String, SpecKeySet {
    /// The exact list of URLs the SDK opened.
    case opened
    /// The last page's status and text.
    case pageStatus, pageContains
    /// The redirect the last browser action captured, or that there was none.
    case redirect, noRedirect
    /// Whether the SDK dismissed the browser.
    case dismissed
}

/// One check on what the browser saw since the previous step.
public enum BrowserCheck: Sendable, Equatable {
    /// The exact list of URLs the SDK opened.
    case opened([URLExpectation])
    /// The status of the last page the browser loaded.
    case pageStatus(Int)
    /// Text the last page must contain.
    case pageContains(Template)
    /// The redirect the last browser action captured (its `Location`).
    case redirect(URLExpectation)
    /// The last browser action ended without a redirect (only `true` is accepted: `false` would check nothing).
    case noRedirect
    /// True: the SDK dismissed the browser; false: it left it open.
    case dismissed(Bool)

    /// The key this check was written under.
    public var key: BrowserCheckKind {
        switch self {
        case .opened: return .opened
        case .pageStatus: return .pageStatus
        case .pageContains: return .pageContains
        case .redirect: return .redirect
        case .noRedirect: return .noRedirect
        case .dismissed: return .dismissed
        }
    }
}
