/// A responder made from a closure, for tests and small adapters.
public struct ClosureResponder: HTTPResponder {
    private let body: @Sendable (HTTPRequest) -> HTTPResponse

    public init(_ body: @escaping @Sendable (HTTPRequest) -> HTTPResponse) {
        self.body = body
    }

    public func respond(to request: HTTPRequest) -> HTTPResponse {
        body(request)
    }
}
