import Foundation
import FlowCheckSDK

/// A clock that moves only when told (model: pointfreeco/swift-clocks `TestClock`).
///
/// Inject it wherever the SDK takes a `TimeSource`; expiry logic then sees exactly the time the
/// test sets, so "61 minutes later" costs nothing and never flakes.
///
/// ```swift
/// let clock = ManualClock()                     // 2026-01-01T00:00:00Z
/// let client = MoltinClient(configuration: configuration, transport: transport,
///                           store: InMemoryTokenStore(), clock: clock)
/// try await client.auth(clientId: "id", clientSecret: "secret")
/// clock.advance(by: 61 * 60)                    // the one-hour token is now expired
/// _ = try await client.products()               // refreshes before sending
/// ```
public final class ManualClock: TimeSource, @unchecked Sendable {
    // `@unchecked`: the only state is `current`, always accessed under `lock`.
    private let lock = NSLock()
    private var current: Date

    /// Creates a clock stopped at `now`.
    /// - Parameter now: The starting instant; defaults to 2026-01-01T00:00:00Z so runs are
    ///   reproducible.
    public init(now: Date = Date(timeIntervalSince1970: 1_767_225_600)) {
        current = now
    }

    /// The clock's current instant.
    public var now: Date {
        lock.lock()
        defer { lock.unlock() }
        return current
    }

    /// Moves the clock by `seconds` (negative values move it back).
    /// - Parameter seconds: How far to move.
    public func advance(by seconds: TimeInterval) {
        lock.lock()
        defer { lock.unlock() }
        current = current.addingTimeInterval(seconds)
    }

    /// Sets the clock to `date`, forwards or backwards.
    /// - Parameter date: The new current instant.
    public func set(_ date: Date) {
        lock.lock()
        defer { lock.unlock() }
        current = date
    }
}
