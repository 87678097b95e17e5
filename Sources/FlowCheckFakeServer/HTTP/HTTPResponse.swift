import Foundation

/// A response a responder wants written; the server adds framing headers itself.
///
/// `Content-Length`, `Transfer-Encoding` and `Connection` set here are replaced on the wire
/// (except that `Connection: close` is honoured by closing after the response).
public struct HTTPResponse: Sendable, Equatable {
    public var status: Int
    /// The reason phrase; defaults to the standard one for `status`.
    public var reason: String
    public var headers: HTTPHeaders
    public var body: Data

    public init(status: Int, headers: HTTPHeaders = HTTPHeaders(), body: Data = Data()) {
        self.init(status: status, reason: HTTPResponse.reasonPhrase(for: status), headers: headers, body: body)
    }

    public init(status: Int, reason: String, headers: HTTPHeaders = HTTPHeaders(), body: Data = Data()) {
        self.status = status
        self.reason = reason
        self.headers = headers
        self.body = body
    }

    /// A JSON response with sorted keys and `Content-Type: application/json`.
    ///
    /// Values may be `String`, `Bool`, integers, `Double`, arrays, nested dictionaries,
    /// `NSNull` or ``FakeJSON``.
    public static func json(_ status: Int, _ object: [String: Any]) -> HTTPResponse {
        json(status, FakeJSON(any: object))
    }

    /// A JSON response from an already built ``FakeJSON``.
    public static func json(_ status: Int, _ value: FakeJSON) -> HTTPResponse {
        HTTPResponse(
            status: status,
            headers: ["Content-Type": "application/json"],
            body: Data(value.compactText.utf8)
        )
    }

    /// A text response, UTF-8 encoded.
    public static func text(_ status: Int, _ text: String, contentType: String = "text/plain; charset=utf-8") -> HTTPResponse {
        HTTPResponse(status: status, headers: ["Content-Type": contentType], body: Data(text.utf8))
    }

    /// The body as UTF-8 text (lossy), handy in assertions and reports.
    public var bodyText: String {
        String(decoding: body, as: UTF8.self)
    }

    /// The body parsed as JSON, or nil if it is not valid JSON.
    public var jsonBody: FakeJSON? {
        FakeJSON.parse(body)
    }

    /// Top-level fields of a JSON object body as strings, rendered like
    /// ``HTTPRequest/jsonFields()``; nil unless the body is a JSON object.
    public func jsonFields() -> [String: String]? {
        guard case .object(let fields)? = jsonBody else { return nil }
        return fields.mapValues(\.fieldText)
    }

    /// The standard reason phrase for `status`, or "Unknown" for codes we never emit.
    public static func reasonPhrase(for status: Int) -> String {
        switch status {
        case 100: "Continue"
        case 200: "OK"
        case 201: "Created"
        case 202: "Accepted"
        case 204: "No Content"
        case 301: "Moved Permanently"
        case 302: "Found"
        case 303: "See Other"
        case 304: "Not Modified"
        case 307: "Temporary Redirect"
        case 308: "Permanent Redirect"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 408: "Request Timeout"
        case 409: "Conflict"
        case 411: "Length Required"
        case 413: "Content Too Large"
        case 415: "Unsupported Media Type"
        case 422: "Unprocessable Content"
        case 429: "Too Many Requests"
        case 431: "Request Header Fields Too Large"
        case 500: "Internal Server Error"
        case 501: "Not Implemented"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        case 505: "HTTP Version Not Supported"
        default: "Unknown"
        }
    }
}
