import Foundation

/// The parameters of an authorization-code token request (RFC 6749 §4.1.3), read from a form
/// body or from a JSON object (Clever's API takes both), after the checks both fakes share.
struct TokenRequestFields {
    private let values: [String: String]

    /// Reads `request`'s body.
    ///
    /// DECISIONS: the Content-Type must be `application/x-www-form-urlencoded` or
    /// `application/json` (parameters ignored); a missing one is refused too, since every
    /// HTTP client a mobile SDK uses can set it. A repeated form field is refused (RFC 6749
    /// §3.2). Every JSON value must be a string. A `client_secret`, in the body or in the
    /// query, is refused whatever its value: these endpoints authenticate the client with the
    /// Authorization header only, and RFC 6749 §2.3 forbids using two methods at once.
    /// - Throws: `invalid_request` for each of the above.
    init(_ request: HTTPRequest) throws(TokenEndpointError) {
        if request.queryItem("client_secret") != nil {
            throw Self.secretRefused
        }
        var values: [String: String] = [:]
        switch HTTPHeaders.mediaType(request.headers["Content-Type"]) {
        case "application/x-www-form-urlencoded":
            guard let fields = request.formFields else { throw .invalidRequest("malformed form body") }
            for field in fields {
                if field.name == "client_secret" { throw Self.secretRefused }
                guard values[field.name] == nil else {
                    throw .invalidRequest("parameter \(field.name) is repeated")
                }
                values[field.name] = field.value
            }
        case "application/json":
            guard case .object(let object)? = request.jsonBody else {
                throw .invalidRequest("the body must be a JSON object")
            }
            if object["client_secret"] != nil { throw Self.secretRefused }
            for (name, value) in object {
                guard case .string(let text) = value else { throw .invalidRequest("\(name) must be a string") }
                values[name] = text
            }
        default:
            throw .invalidRequest("Content-Type must be application/x-www-form-urlencoded or application/json")
        }
        self.values = values
    }

    /// The value of `name`.
    /// - Throws: `invalid_request` when it is missing or empty (RFC 6749 §3.2: a parameter
    ///   sent without a value is treated as omitted).
    func required(_ name: String) throws(TokenEndpointError) -> String {
        guard let value = values[name], !value.isEmpty else {
            throw .invalidRequest("\(name) is required")
        }
        return value
    }

    /// The value of `name`, or nil when missing or empty.
    func optional(_ name: String) -> String? {
        guard let value = values[name], !value.isEmpty else { return nil }
        return value
    }

    private static let secretRefused = TokenEndpointError.invalidRequest(
        "client_secret must not be sent as a parameter; authenticate with the Authorization header only"
    )
}
