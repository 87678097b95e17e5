/// The seam between transport and logic: turns a request into a response with no sockets,
/// so provider behaviour can be tested (and fuzzed) without the network.
public protocol HTTPResponder: Sendable {
    func respond(to request: HTTPRequest) -> HTTPResponse

    /// The answer to a request the parser refused (malformed, too large, too slow): plain text
    /// unless the responder speaks another format (the control API answers JSON).
    func rejection(status: Int, reason: String) -> HTTPResponse
}

extension HTTPResponder {
    public func rejection(status: Int, reason: String) -> HTTPResponse {
        .text(status, reason + "\n")
    }
}
