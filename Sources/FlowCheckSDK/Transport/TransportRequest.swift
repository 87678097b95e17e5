import Foundation

/// A request as the SDK hands it to the network.
///
/// Headers are an ordered list so what the SDK sends is exactly what a transport (or a test)
/// sees. It deliberately has no `description`: the body and URL may carry secrets.
public struct TransportRequest: Sendable {
    /// The HTTP method, e.g. `"GET"` or `"POST"`.
    public var method: String

    /// The full request URL.
    public var url: URL

    /// Header fields in the order they are sent.
    public var headers: [(String, String)]

    /// The request body, if any.
    public var body: Data?

    /// Creates a request.
    /// - Parameters:
    ///   - method: The HTTP method.
    ///   - url: The full request URL.
    ///   - headers: Header fields in sending order.
    ///   - body: The body, if any.
    public init(method: String = "GET", url: URL, headers: [(String, String)] = [], body: Data? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }

    /// The value of the first header named `name`, compared case-insensitively (RFC 9110 §5.1).
    /// - Parameter name: The header name.
    /// - Returns: Its value, or nil when absent.
    public func header(_ name: String) -> String? {
        let wanted = name.lowercased()
        return headers.first { $0.0.lowercased() == wanted }?.1
    }
}
