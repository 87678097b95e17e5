import Foundation

/// A transport that gives every request a deadline on an injected clock: a request that gets no
/// answer in time ends with `OAuthError` `.transport` instead of waiting forever.
///
/// `URLSessionTransport`'s own timeout counts real seconds between bytes, so a server that
/// trickles a response, or a harness on a virtual clock, never sees it fire. This deadline is
/// measured by `clock`, so on a `ManualClock` "30 seconds later" is one `advance(by:)` away and
/// costs no real time.
///
/// ```swift
/// // Production: the wall clock.
/// let transport = DeadlineTransport(base: URLSessionTransport(), clock: SystemTimeSource())
/// let client = MoltinClient(configuration: .production, transport: transport,
///                           store: store, clock: SystemTimeSource())
///
/// // Tests and harnesses: the same clock the client reads, moved by hand.
/// let clock = ManualClock()
/// let transport = DeadlineTransport(base: fakeServer, clock: clock, timeout: 30)
/// ```
public struct DeadlineTransport: HTTPTransport {
    private let base: any HTTPTransport
    private let clock: any TimeSource
    private let timeout: TimeInterval

    /// Creates a transport that bounds every `base.send` by `timeout` seconds of `clock`.
    /// - Parameters:
    ///   - base: The transport that does the sending; it must end its `send` with
    ///     `CancellationError` (or any result) when its task is cancelled, as `HTTPTransport`
    ///     asks, because the deadline ends the request by cancelling it.
    ///   - clock: The time source that measures the deadline, through `sleep(until:)`.
    ///   - timeout: Seconds from the start of each `send` to its deadline; defaults to 30.
    ///     Zero or negative means the deadline has already passed; an infinite (or NaN) timeout
    ///     means no deadline at all.
    public init(base: any HTTPTransport, clock: any TimeSource, timeout: TimeInterval = 30) {
        self.base = base
        self.clock = clock
        self.timeout = timeout
    }

    /// Sends `request` through the base transport, racing it against the deadline: whichever
    /// finishes first wins, and the other is cancelled and awaited, so nothing of this request
    /// is still running when `send` returns.
    /// - Parameter request: The request to send.
    /// - Returns: The base transport's response, when it came before the deadline.
    /// - Throws: `OAuthError` `.transport` "the server did not answer within N s" at the
    ///   deadline (no URL, no body: nothing of the request); the base transport's error when it
    ///   failed first; `CancellationError` when the calling task was cancelled.
    public func send(_ request: TransportRequest) async throws -> TransportResponse {
        guard timeout.isFinite else {
            return try await base.send(request)
        }
        let deadline = clock.now.addingTimeInterval(max(timeout, 0))
        let base = self.base
        let clock = self.clock
        return try await withThrowingTaskGroup(of: Outcome.self) { group in
            group.addTask {
                .answered(try await base.send(request))
            }
            group.addTask {
                try await clock.sleep(until: deadline)
                return .deadlinePassed
            }
            // Whichever child finishes first decides; leaving the group cancels and awaits the
            // other (a cancelled sleep ends at once; a cancelled send ends the data task).
            defer { group.cancelAll() }
            guard let first = try await group.next() else {
                // Unreachable: two children were added.
                throw CancellationError()
            }
            switch first {
            case .answered(let response):
                return response
            case .deadlinePassed:
                // A caller cancelled just as the deadline passed learns of its cancellation, not
                // of a timeout: the cancellation is the reason it no longer waits.
                try Task.checkCancellation()
                throw OAuthError.transport("the server did not answer within \(Self.seconds(timeout)) s")
            }
        }
    }

    /// How a race ended.
    private enum Outcome: Sendable {
        case answered(TransportResponse)
        case deadlinePassed
    }

    /// `30`, `0.5`: whole seconds without a fraction, as people write them.
    private static func seconds(_ value: TimeInterval) -> String {
        let clamped = max(value, 0)
        if clamped.rounded() == clamped, clamped < 1e15 {
            return String(Int64(clamped))
        }
        return String(clamped)
    }
}
