import Foundation

/// One request the fake received and the response it sent, in arrival order, so a flow's
/// wire traffic can be asserted on and reported after the fact.
public struct RecordedExchange: Sendable, Equatable {
    /// Position in the recording, starting at 0.
    public let index: Int
    /// The virtual time at which the request was handled.
    public let time: Date
    public let request: HTTPRequest
    public let response: HTTPResponse
    /// The ``FaultKind`` raw value that produced `response`, or nil if the provider answered.
    public let fault: String?

    public init(index: Int, time: Date, request: HTTPRequest, response: HTTPResponse, fault: String?) {
        self.index = index
        self.time = time
        self.request = request
        self.response = response
        self.fault = fault
    }
}
