/// An injected failure: which kind, on which path, for how many requests.
///
/// For `.unreachable`, `path` and `times` are ignored: refused connections carry no request
/// to match or count, so it lasts until `clearFaults()`.
public struct Fault: Sendable, Equatable {
    public var kind: FaultKind
    /// Exact decoded request path to match (e.g. "/v1/products"); nil matches every path.
    public var path: String?
    /// How many matching requests it answers before disappearing; nil = until cleared.
    /// Zero or less means the fault never fires.
    public var times: Int?

    public init(kind: FaultKind, path: String? = nil, times: Int? = nil) {
        self.kind = kind
        self.path = path
        self.times = times
    }

    public init(_ kind: FaultKind, path: String? = nil, times: Int? = nil) {
        self.init(kind: kind, path: path, times: times)
    }

    /// Whether this fault answers `request`.
    public func matches(_ request: HTTPRequest) -> Bool {
        if let times, times <= 0 { return false }
        guard let path else { return true }
        return request.path == path
    }
}
