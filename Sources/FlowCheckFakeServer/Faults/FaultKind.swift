import Foundation

/// The failures a flow can inject, named as spec files spell them.
///
/// Most kinds replace the provider's answer with a canned response. Three act on the
/// transport instead: `unreachable` (no connection at all), `connectionReset` and `stall`
/// (a connection that breaks or goes silent mid-exchange). For the last two the recorded
/// response, and what a socket-free caller of ``FakeProviderServer/responder`` gets, is the
/// response as planned; only the loopback server actually misbehaves.
public enum FaultKind: String, Sendable, CaseIterable {
    /// Connections are refused until faults are cleared (listener and open connections closed).
    case unreachable
    /// 500 with `{"status":false,"error":"Internal Server Error"}`.
    case serverError
    /// 200 with an HTML body and `Content-Type: text/html`, to test non-JSON handling.
    case nonJSONBody
    /// 401 with Moltin's `{"status":false,"error":"Access token is not valid"}` whatever the token.
    case tokenNotValid
    /// A 200 JSON body of about 2 KB is announced with its full
    /// `Content-Length`, but only half of it is written before the connection is reset
    /// (SO_LINGER {1, 0}, then close): the client sees ECONNRESET or a truncated body.
    case connectionReset
    /// The request is read and never answered: the connection stays open and silent until
    /// the client gives up, the fault is cleared or the server stops, and is then closed. The
    /// recording shows status 0 with an empty body. Lets a client's own timeout be tested; a
    /// harness learns the stall began through `FakeProviderServer`'s `stallObserver`.
    case stall
    /// 502 with an HTML body and `Content-Type: text/html`, as a proxy in front of an API
    /// answers when the API is down.
    case htmlServerError
    /// 200 `application/json` whose body stops mid-document
    /// (`{"status":true,"result":[{"id":"prod-1","tit`) with a matching `Content-Length`:
    /// valid HTTP, invalid JSON.
    case truncatedJSON
    /// 302 whose `Location` is the request's own target, so a client that follows
    /// redirects loops until its own limit stops it.
    case redirectLoop
    /// 429 with `Retry-After: 30` and `{"error":"rate_limited",...}` (RFC 6585 §4): the server
    /// asks the client to slow down. A verdict on nothing: no grant or token is refused, so a
    /// client must keep its session and may try again later.
    case rateLimited
    /// 400 with `{"error":"invalid_grant",...}` (RFC 6749 §5.2), as a token endpoint answers a
    /// refresh token or code that is expired, revoked or already used: the server ended the
    /// session. Unlike `server: revokeTokens`, nothing is revoked on the fake itself.
    case invalidGrant
    /// 503 with `Retry-After: 120` and `{"error":"temporarily_unavailable",...}`: the server is
    /// down, not refusing anything, so a client must keep its session.
    case serviceUnavailable
    /// The request is read and held, unanswered, until faults are cleared; then the provider
    /// answers it as it would have (at the clock's time of release) and the exchange is
    /// recorded with that answer. Unlike `stall`, the request does reach the provider: it lets
    /// a flow hold an SDK's refresh in flight while the app does something else (a logout),
    /// then let it complete. A harness learns the hold began through `holdObserver`. Over the
    /// socket-free responder it holds nothing and is answered at once.
    case hold
    /// The provider's own answer, with two members it never sends added to its JSON object
    /// body (`"flowcheck_unknown": "ignored"` and an object). RFC 6749 §5.1 and §5.2: the
    /// client ignores value names it does not recognise, so a conforming client reads the
    /// answer exactly as the original. A reshape (``isReshape``): it changes the answer
    /// whoever gives it, and leaves every other fault in force.
    case unknownMembers
    /// The provider's own answer without its `expires` member, Moltin's epoch expiry: a plain
    /// RFC 6749 §5.1 token answer, whose `expires_in` still says when the token expires (seed
    /// 003 documents both members). A reshape.
    case withoutExpires
    /// The provider's own answer with its `error` member named `errors`, as seed 003's own
    /// `authErrorMessage` reads either (`TokenInvalidResponseKeys.Errors`). A reshape.
    case errorsMember
    /// The provider's own answer without `expires` or `expires_in`: RFC 6749 §5.1 lets a
    /// server leave the lifetime out where its default is documented, and seed 003 documents
    /// it (tokens last an hour). A reshape.
    case withoutExpiry
    /// 200 `application/json` with an object of none of the provider's shapes
    /// (`{"status":false,"error":"..."}`): readable JSON, no token, no result. A client reports
    /// an invalid answer instead of a made-up default.
    case otherJSON
    /// The provider's own answer without its `WWW-Authenticate` field: seed 003 documents the
    /// expired-token answer by its body alone, so a client must know it from the body. A
    /// reshape.
    case withoutChallenge
    /// The answer's `Retry-After` delay-seconds (a 429's or a 503's) written as the instant
    /// they name, an IMF-fixdate by the fake's clock, rounded up to the whole second: RFC 9110
    /// §10.2.3 lets a server send either form, so a conforming client waits just as long. A
    /// reshape.
    case retryAfterDate

    /// The body `connectionReset` announces: Moltin-shaped products, about 2 KB, so that
    /// half of it is a real partial read rather than a few bytes.
    private static let resetBody: Data = {
        let products: [FakeJSON] = (1...16).map { number in
            FakeJSON(any: [
                "id": "prod-\(number)",
                "title": "Product \(number)",
                "description": "A product served by the fake so a reset lands mid-body.",
                "price": number * 100,
            ] as [String: Any])
        }
        let document = FakeJSON(any: ["status": true, "result": FakeJSON.array(products)] as [String: Any])
        return Data(document.compactText.utf8)
    }()

    /// The body `truncatedJSON` sends: a products document cut inside a key.
    private static let truncatedJSONBody = #"{"status":true,"result":[{"id":"prod-1","tit"#

    /// Whether this kind reshapes the answer the request gets (the provider's own, or another
    /// fault's) instead of replacing it: a reshape never wins over a fault, and is applied on
    /// top of whatever answers.
    public var isReshape: Bool {
        switch self {
        case .unknownMembers, .withoutExpires, .errorsMember, .withoutChallenge, .withoutExpiry, .retryAfterDate:
            return true
        case .unreachable, .serverError, .nonJSONBody, .tokenNotValid, .connectionReset, .stall, .htmlServerError,
             .truncatedJSON, .redirectLoop, .rateLimited, .invalidGrant, .serviceUnavailable, .hold, .otherJSON:
            return false
        }
    }

    /// `response` reshaped as this kind says; unchanged for a kind that is no reshape, and for
    /// an answer it finds nothing to change in (a body that is not a JSON object, no such
    /// member). The body is rewritten as compact JSON; `Content-Length` is the server's.
    /// - Parameter now: The fake's clock when it answers (what a date the reshape writes
    ///   counts from).
    public func reshape(_ response: HTTPResponse, at now: Date) -> HTTPResponse {
        switch self {
        case .retryAfterDate:
            guard let value = response.headers["Retry-After"]?.trimmingCharacters(in: .whitespaces), !value.isEmpty,
                  value.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let seconds = Double(value) else { return response }
            var reshaped = response
            reshaped.headers.set("Retry-After", HTTPDate.imfFixdate(now.addingTimeInterval(seconds)))
            return reshaped
        case .withoutChallenge:
            var reshaped = response
            reshaped.headers.remove("WWW-Authenticate")
            return reshaped
        case .unknownMembers:
            return Self.editingObject(response) { members in
                members["flowcheck_unknown"] = .string("ignored")
                members["flowcheck_unknown_object"] = .object(["nested": .array([.number("1"), .bool(true), .null])])
                return true
            }
        case .withoutExpires:
            return Self.editingObject(response) { $0.removeValue(forKey: "expires") != nil }
        case .withoutExpiry:
            return Self.editingObject(response) { members in
                let removed = [members.removeValue(forKey: "expires"), members.removeValue(forKey: "expires_in")]
                return removed.contains { $0 != nil }
            }
        case .errorsMember:
            return Self.editingObject(response) { members in
                guard let error = members.removeValue(forKey: "error") else { return false }
                members["errors"] = error
                return true
            }
        case .unreachable, .serverError, .nonJSONBody, .tokenNotValid, .connectionReset, .stall, .htmlServerError,
             .truncatedJSON, .redirectLoop, .rateLimited, .invalidGrant, .serviceUnavailable, .hold, .otherJSON:
            return response
        }
    }

    /// `response` with its JSON object body edited by `edit` and written back compact; as it
    /// was when the body is no JSON object or `edit` changed nothing (returned false).
    private static func editingObject(_ response: HTTPResponse, _ edit: (inout [String: FakeJSON]) -> Bool) -> HTTPResponse {
        guard case .object(var members)? = FakeJSON.parse(response.body), edit(&members) else { return response }
        var reshaped = response
        reshaped.body = Data(FakeJSON.object(members).compactText.utf8)
        return reshaped
    }

    /// The canned response for a request to `/`; nil for `unreachable`, which acts on the
    /// transport and never produces a response. Kept for callers that need no request; use
    /// ``response(for:)`` where the request is known (`redirectLoop` points back at it).
    public var response: HTTPResponse? {
        response(for: HTTPRequest(method: "GET", target: "/"))
    }

    /// The response this fault gives `request`: what is recorded and what a socket-free
    /// caller receives. Nil for `unreachable` (no response at all) and `hold` (the provider's
    /// own answer, later).
    public func response(for request: HTTPRequest) -> HTTPResponse? {
        switch self {
        case .unreachable:
            return nil
        case .serverError:
            return .json(500, ["status": false, "error": "Internal Server Error"])
        case .nonJSONBody:
            return .text(200, "<html><body>Service Unavailable</body></html>", contentType: "text/html")
        case .tokenNotValid:
            // RFC 6750 §3: as the providers' own 401s, with a Bearer challenge.
            var response = HTTPResponse.json(401, ["status": false, "error": "Access token is not valid"])
            response.headers.set("WWW-Authenticate", "Bearer error=\"invalid_token\"")
            return response
        case .connectionReset:
            return HTTPResponse(status: 200, headers: ["Content-Type": "application/json"], body: Self.resetBody)
        case .stall:
            // Status 0 is no HTTP status, so a stall can never be mistaken for an answer.
            return HTTPResponse(status: 0, reason: "No Response")
        case .htmlServerError:
            return .text(502, "<html><body><h1>502 Bad Gateway</h1></body></html>", contentType: "text/html")
        case .truncatedJSON:
            return HTTPResponse(status: 200, headers: ["Content-Type": "application/json"], body: Data(Self.truncatedJSONBody.utf8))
        case .redirectLoop:
            // The raw target, query included, so following it repeats exactly this request.
            return HTTPResponse(status: 302, headers: ["Location": request.target])
        case .rateLimited:
            var response = HTTPResponse.json(429, ["error": "rate_limited", "error_description": "Too many requests; retry after 30 seconds"])
            response.headers.set("Retry-After", "30")
            return response
        case .invalidGrant:
            return .json(400, ["error": "invalid_grant", "error_description": "The grant is expired, revoked or already used"])
        case .serviceUnavailable:
            var response = HTTPResponse.json(503, ["error": "temporarily_unavailable", "error_description": "The service is down for maintenance"])
            response.headers.set("Retry-After", "120")
            return response
        case .hold:
            // No canned answer: the provider answers, once the hold ends.
            return nil
        case .otherJSON:
            return .json(200, ["status": false, "error": "FlowCheck: an answer of none of the provider's shapes"])
        case .unknownMembers, .withoutExpires, .errorsMember, .withoutChallenge, .withoutExpiry, .retryAfterDate:
            // No answer of its own: it reshapes another's.
            return nil
        }
    }
}
