import Foundation

/// One parsed HTTP request, as it arrived, with decoded views for provider logic.
///
/// The decoded views (`path`, `query`, `formFields`, `jsonBody`) are computed from the raw
/// fields on demand, so they can never drift from what was actually received.
public struct HTTPRequest: Sendable, Equatable {
    /// The method token exactly as sent, e.g. "GET" (methods are case-sensitive).
    public var method: String
    /// The raw request-target, e.g. "/v1/products?x=1".
    public var target: String
    /// "HTTP/1.1" or "HTTP/1.0" (the parser rejects anything else with 505).
    public var version: String
    public var headers: HTTPHeaders
    public var body: Data

    public init(method: String, target: String, version: String = "HTTP/1.1", headers: HTTPHeaders = HTTPHeaders(), body: Data = Data()) {
        self.method = method
        self.target = target
        self.version = version
        self.headers = headers
        self.body = body
    }

    /// The path without the query, percent-decoded ('+' stays '+'); invalid escapes are kept
    /// literally. An absolute-form target (`http://host/p`) yields its path ("/" if empty).
    public var path: String {
        // The common origin-form target with nothing to decode, without building anything
        // but the result: providers read the path several times a request.
        let bytes = target.utf8
        if bytes.first == UInt8(ascii: "/") {
            let end = bytes.firstIndex { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") || $0 == UInt8(ascii: "%") } ?? bytes.endIndex
            if end == bytes.endIndex || bytes[end] != UInt8(ascii: "%") { return String(target[..<end]) }
        }
        var rawPath = target[...]
        let lowered = rawPath.lowercased()
        if lowered.hasPrefix("http://") || lowered.hasPrefix("https://"), let scheme = rawPath.range(of: "://") {
            let afterScheme = rawPath[scheme.upperBound...]
            let pathStart = afterScheme.firstIndex { $0 == "/" || $0 == "?" } ?? afterScheme.endIndex
            rawPath = afterScheme[pathStart...]
            if rawPath.first != "/" { rawPath = "/" + rawPath }
        }
        if let mark = rawPath.firstIndex(where: { $0 == "?" || $0 == "#" }) {
            rawPath = rawPath[..<mark]
        }
        return FormURLEncoding.decodePath(rawPath)
    }

    /// The query as ordered pairs.
    ///
    /// Decoding choice: RFC 3986 percent-decoding plus '+' as space, because HTML forms and
    /// most OAuth clients encode queries that way; a literal plus must be sent as %2B.
    /// Decoding is lenient here (bad escapes stay literal) because a query cannot be refused.
    public var query: [(name: String, value: String)] {
        guard let mark = target.firstIndex(of: "?") else { return [] }
        var rawQuery = target[target.index(after: mark)...]
        if let hash = rawQuery.firstIndex(of: "#") { rawQuery = rawQuery[..<hash] }
        return FormURLEncoding.decodeLeniently(rawQuery)
    }

    /// The body read as `application/x-www-form-urlencoded` ('+' is space, %XX is UTF-8),
    /// whatever the Content-Type says; nil if an escape is malformed or the result is not UTF-8.
    /// An empty body is an empty list.
    public var formFields: [(name: String, value: String)]? {
        FormURLEncoding.decode([UInt8](body))
    }

    /// The first form field called `name`, if the body decodes as a form.
    public func formField(_ name: String) -> String? {
        formFields?.first { $0.name == name }?.value
    }

    /// The name of the first query parameter that appears twice, if any. RFC 6749 §3.1:
    /// authorization request parameters MUST NOT be repeated; which copy would count is
    /// ambiguous.
    var repeatedQueryName: String? {
        var seen = Set<String>()
        return query.first { !seen.insert($0.name).inserted }?.name
    }

    /// The first query parameter called `name`.
    public func queryItem(_ name: String) -> String? {
        query.first { $0.name == name }?.value
    }

    /// The body parsed as JSON, or nil if it is not valid JSON.
    public var jsonBody: FakeJSON? {
        FakeJSON.parse(body)
    }

    /// Top-level fields of a JSON object body rendered as strings (strings as-is, numbers and
    /// booleans as JSON text, nested values as compact sorted JSON); nil unless the body is
    /// a JSON object.
    public func jsonFields() -> [String: String]? {
        guard case .object(let fields)? = jsonBody else { return nil }
        return fields.mapValues(\.fieldText)
    }
}
