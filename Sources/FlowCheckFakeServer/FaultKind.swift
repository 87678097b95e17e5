import Foundation

/// The failures a flow can inject, named as spec files spell them.
public enum FaultKind: String, Sendable, CaseIterable {
    /// Connections are refused until faults are cleared (listener and open connections closed).
    case unreachable
    /// 500 with `{"status":false,"error":"Internal Server Error"}`.
    case serverError
    /// 200 with an HTML body and `Content-Type: text/html`, to test non-JSON handling.
    case nonJSONBody
    /// 401 with Moltin's `{"status":false,"error":"Access token is not valid"}` whatever the token.
    case tokenNotValid

    /// The canned response for an HTTP-level fault; nil for `unreachable`, which acts on the
    /// transport and never produces a response.
    public var response: HTTPResponse? {
        switch self {
        case .unreachable:
            return nil
        case .serverError:
            return .json(500, ["status": false, "error": "Internal Server Error"])
        case .nonJSONBody:
            return .text(200, "<html><body>Service Unavailable</body></html>", contentType: "text/html")
        case .tokenNotValid:
            return .json(401, ["status": false, "error": "Access token is not valid"])
        }
    }
}
