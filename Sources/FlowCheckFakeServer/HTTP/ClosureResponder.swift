/// A responder made from a closure, for tests and small adapters.
public struct ClosureResponder: HTTPResponder {
    private let body: @Sendable (HTTPRequest) -> HTTPResponse
    private let rejecting: (@Sendable (Int, String) -> HTTPResponse)?

    /// - Parameter rejection: how a request the parser refused is answered (plain text if nil).
    public init(rejection: (@Sendable (Int, String) -> HTTPResponse)? = nil, _ body: @escaping @Sendable (HTTPRequest) -> HTTPResponse) {
        self.body = body
        self.rejecting = rejection
    }

    public func respond(to request: HTTPRequest) -> HTTPResponse {
        body(request)
    }

    public func rejection(status: Int, reason: String) -> HTTPResponse {
        rejecting?(status, reason) ?? .text(status, reason + "\n")
    }
}
