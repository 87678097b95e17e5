/// A response together with how the connection must deliver it.
///
/// Internal on purpose: it is how ``ProviderResponder`` asks the transport to misbehave
/// (reset, stall) without widening the public ``HTTPResponder`` seam, which stays
/// socket-free. A responder that does not plan gets `.complete` delivery.
struct ResponsePlan: Sendable {
    var response: HTTPResponse
    var delivery: ResponseDelivery = .complete
}

/// What the connection does with a planned response.
enum ResponseDelivery: Sendable {
    /// Writes it whole and honours keep-alive, as for any responder.
    case complete
    /// Writes the head (full `Content-Length`) and half the body, then resets the connection.
    case resetMidBody
    /// Writes nothing and holds the connection until the peer closes, `gate` is released or
    /// the server stops; then closes.
    case stall(StallGate)
    /// Writes nothing until `gate` is released, then writes `answer()` (the provider's answer,
    /// recorded when it is made) and closes; if the peer closes or the server stops first,
    /// nothing is answered.
    /// `finished` is called once the connection is done with the hold, however it ended.
    case hold(StallGate, answer: @Sendable () -> HTTPResponse, finished: @Sendable () -> Void)
}

/// A responder the connection consults for delivery and tells about rejected requests.
///
/// `respond(to:)` stays the socket-free path: it returns the planned response and never
/// starts a stall, so calling it cannot leave anything waiting.
protocol TransportAwareResponder: HTTPResponder {
    /// The response for `request` and how to deliver it; called on the thread serving the connection (the event loop's on Linux).
    func plan(for request: HTTPRequest) -> ResponsePlan
    /// Told, before `response` is written, of a request the parser refused (400, 408, 413,
    /// 431, 501, 505); `request` holds what could be salvaged of it.
    func recordRejection(_ request: HTTPRequest, response: HTTPResponse)
}
