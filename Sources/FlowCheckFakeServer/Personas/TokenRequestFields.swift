import Foundation

/// The parameters of a token request (RFC 6749 §4.1.3, §6), read from a form body or a JSON
/// object after the checks all four fakes share, so each refuses the same things the same way.
struct TokenRequestFields {
    /// The body media types a token endpoint takes.
    enum BodyType: Equatable {
        case form
        case json

        var mediaType: String {
            switch self {
            case .form: "application/x-www-form-urlencoded"
            case .json: "application/json"
            }
        }
    }

    private let values: [String: String]

    /// Reads `request`'s body, one of `accepted`.
    ///
    /// DECISIONS, the same for every fake:
    /// - the Content-Type must be one of `accepted` (parameters ignored): another one is 400
    ///   `invalid_request`; a missing one is refused too, as FlowCheck policy (every HTTP
    ///   client a mobile SDK uses can set it, and a body without one is a bug to surface);
    /// - a repeated form field or top-level JSON key is 400 (RFC 6749 §3.2: parameters MUST
    ///   NOT be included more than once), whichever copy is right;
    /// - every JSON value must be a string.
    /// - Throws: `invalid_request` for each of the above, with its ``FlowCheckRule``.
    init(_ request: HTTPRequest, accepting accepted: [BodyType]) throws(TokenEndpointError) {
        let names = accepted.map(\.mediaType).joined(separator: " or ")
        guard let mediaType = HTTPHeaders.mediaType(request.headers["Content-Type"]) else {
            throw .invalidRequest("FlowCheck policy: a Content-Type is required; send \(names)", .tokenContentType)
        }
        guard let type = accepted.first(where: { $0.mediaType == mediaType }) else {
            throw .invalidRequest("Content-Type must be \(names)", .tokenContentType)
        }
        var values: [String: String] = [:]
        switch type {
        case .form:
            guard let fields = request.formFields else { throw .invalidRequest("malformed form body", .tokenMalformedBody) }
            for field in fields {
                guard values[field.name] == nil else {
                    throw .invalidRequest("parameter \(field.name) is repeated", .tokenRepeatedParameter)
                }
                values[field.name] = field.value
            }
        case .json:
            guard case .object(let object)? = request.jsonBody else {
                throw .invalidRequest("the body must be a JSON object", .tokenMalformedBody)
            }
            if let name = FakeJSON.repeatedTopLevelKey(in: request.body) {
                throw .invalidRequest("parameter \(name) is repeated", .tokenRepeatedParameter)
            }
            for (name, value) in object {
                guard case .string(let text) = value else {
                    throw .invalidRequest("\(name) must be a string", .tokenParameterNotString)
                }
                values[name] = text
            }
        }
        self.values = values
    }

    /// Whether the body carries `name` at all, even empty.
    func contains(_ name: String) -> Bool {
        values[name] != nil
    }

    /// The value of `name`.
    /// - Throws: `invalid_request` when it is missing or empty (RFC 6749 §3.2: a parameter
    ///   sent without a value is treated as omitted).
    func required(_ name: String) throws(TokenEndpointError) -> String {
        guard let value = values[name], !value.isEmpty else {
            throw .invalidRequest("\(name) is required", .tokenParameterMissing)
        }
        return value
    }

    /// The value of `name`, empty included.
    /// - Throws: `invalid_request` when it is missing.
    func present(_ name: String) throws(TokenEndpointError) -> String {
        guard let value = values[name] else {
            throw .invalidRequest("\(name) is required", .tokenParameterMissing)
        }
        return value
    }

    /// The value of `name`, or nil when missing or empty.
    func optional(_ name: String) -> String? {
        guard let value = values[name], !value.isEmpty else { return nil }
        return value
    }

    /// Refuses a `client_secret` in the body or the query, whatever its value, for endpoints
    /// that authenticate the client with the Authorization header only (RFC 6749 §2.3 forbids
    /// two methods at once; refusing the parameter on its own is FlowCheck policy).
    static func refuseSecretParameter(_ request: HTTPRequest, _ fields: TokenRequestFields) throws(TokenEndpointError) {
        if request.queryItem("client_secret") != nil || fields.contains("client_secret") {
            throw .invalidRequest(
                "FlowCheck policy: client_secret must not be sent as a parameter; authenticate with the Authorization header only",
                .tokenClientSecretParameter
            )
        }
    }
}
