import Foundation

/// Records values handed to a `@Sendable` callback from any thread, in order; for
/// `BraintreeConnect`'s `notify`.
///
/// ```swift
/// let events = EventRecorder<BraintreeConnectEvent>()
/// let connect = BraintreeConnect(configuration: configuration, transport: backend,
///                                userAgent: browser, notify: events.callback)
/// #expect(events.values == [.connected(merchantID: "M1")])
/// ```
final class EventRecorder<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var recorded: [Value] = []

    var values: [Value] {
        lock.lock()
        defer { lock.unlock() }
        return recorded
    }

    func record(_ value: Value) {
        lock.lock()
        defer { lock.unlock() }
        recorded.append(value)
    }

    /// A callback that records.
    var callback: @Sendable (Value) -> Void {
        { [self] value in self.record(value) }
    }
}
