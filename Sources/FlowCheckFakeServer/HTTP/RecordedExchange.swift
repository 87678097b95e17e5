import Foundation

/// One request the fake received and the response it sent, in arrival order, so a flow's
/// wire traffic can be asserted on and reported after the fact.
public struct RecordedExchange: Sendable, Equatable {
    /// Position in the recording, starting at 0.
    public let index: Int
    /// The virtual time at which the request was handled.
    public let time: Date
    /// The request. For one the server refused before it was complete or valid (400, 408,
    /// 413, 431, 501, 505): what could be read of it, "?" for a method, target or version
    /// that could not be, header fields only from a complete head, and never a body.
    public let request: HTTPRequest
    /// The response written, or planned for a transport fault: `connectionReset` records the
    /// whole response of which half was sent, `stall` records status 0 and no body.
    public let response: HTTPResponse
    /// The ``FaultKind`` raw value that produced `response`, or nil if the provider answered.
    public let fault: String?
    /// The origin (listener) the request came in on: one of the provider's
    /// ``FakeProvider/origins``, ``FakeOrigin/main`` for a one-origin provider.
    public let origin: String

    /// Why the request was refused: the rule named by the response's `FlowCheck-Rule` header
    /// (every 4xx/5xx a persona or the HTTP layer produces carries one), nil for an answer
    /// that is not a refusal and for an injected fault (see `fault`).
    public var rule: FlowCheckRule? { response.rule }

    public init(index: Int, time: Date, request: HTTPRequest, response: HTTPResponse, fault: String?, origin: String = FakeOrigin.main) {
        self.origin = origin
        self.index = index
        self.time = time
        self.request = request
        self.response = response
        self.fault = fault
    }
}
