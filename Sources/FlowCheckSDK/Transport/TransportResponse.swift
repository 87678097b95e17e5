import Foundation

/// A response as the network hands it back to the SDK.
public struct TransportResponse: Sendable {
    /// The HTTP status code.
    public var status: Int

    /// Header fields keyed by lowercased name (RFC 9110 §5.1: names are case-insensitive).
    public var headers: [String: String]

    /// The response body; empty when there was none.
    public var body: Data

    /// Creates a response.
    /// - Parameters:
    ///   - status: The HTTP status code.
    ///   - headers: Header fields; names are lowercased here, whatever their spelling.
    ///   - body: The body.
    public init(status: Int, headers: [String: String] = [:], body: Data = Data()) {
        self.status = status
        var lowered: [String: String] = [:]
        for (name, value) in headers {
            lowered[name.lowercased()] = value
        }
        self.headers = lowered
        self.body = body
    }

    /// The value of the header named `name`, compared case-insensitively.
    /// - Parameter name: The header name.
    /// - Returns: Its value, or nil when absent.
    public func header(_ name: String) -> String? {
        headers[name.lowercased()]
    }
}
