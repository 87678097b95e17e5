import Foundation

/// A request the server is stalling (``FaultKind/stall``), as the harness sees it: whether the
/// client is still waiting on it, and a way to end it.
///
/// A harness that moves its virtual clock past the client's request timeout when a stall
/// begins uses it to judge that timeout: a client whose timeout follows the flow's clock has
/// closed the connection moments later; one still waiting has a timeout on some other clock.
public struct StallHandle: Sendable {
    let gate: StallGate
    /// The stalled request.
    public let request: HTTPRequest

    /// Whether the client still holds the stalled connection open (the stall has not ended).
    public var isWaiting: Bool { !gate.hasEnded }

    /// Ends the stall: the connection is closed without an answer, as a dropped connection.
    public func release() { gate.release() }
}
