import Foundation

/// The wall clock: the time source for production use.
///
/// `sleep(until:)` is the protocol's default: a real `Task.sleep` for the remaining interval.
public struct SystemTimeSource: TimeSource {
    /// Creates a time source that reads the system clock.
    public init() {}

    /// The current system time.
    public var now: Date { Date() }
}
