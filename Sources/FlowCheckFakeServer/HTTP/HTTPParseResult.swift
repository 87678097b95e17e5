/// What the parser made of the bytes received so far on a connection.
public enum HTTPParseResult: Sendable, Equatable {
    /// The buffer holds a valid prefix of a request; read more.
    case needMoreData
    /// A complete request occupying the first `consumed` bytes; any rest is the next
    /// (pipelined) request.
    case request(HTTPRequest, consumed: Int)
    /// The bytes can never become a valid request; answer `status` and close the connection.
    /// `rule` names the framing rule that refused them.
    case failure(status: Int, reason: String, rule: FlowCheckRule)
}
