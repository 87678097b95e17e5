/// The seam between transport and logic: turns a request into a response with no sockets,
/// so provider behaviour can be tested (and fuzzed) without the network.
public protocol HTTPResponder: Sendable {
    func respond(to request: HTTPRequest) -> HTTPResponse
}
