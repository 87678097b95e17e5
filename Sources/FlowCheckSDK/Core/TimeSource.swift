import Foundation

/// Time source injected into the SDK.
///
/// Every expiry decision reads `now` from here, never from `Date()`, so tests and flow specs can
/// move a virtual clock by hand ("61 minutes later" costs nothing). It is not named `Clock`
/// because that would collide with `Swift.Clock`.
public protocol TimeSource: Sendable {
    /// The current instant as this time source sees it.
    var now: Date { get }
}
