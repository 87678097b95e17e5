import Foundation

/// The one request the device makes in seed 002's client-side flow: asking the merchant's own
/// backend for the connect URL ("instantiate an SFSafariViewController with a connect URL
/// retrieved from your server"). No credential goes with it: the backend holds the client secret
/// and creates the token itself.
enum BraintreeConnectWire {
    /// `GET {connectURLEndpoint}` with `Accept: application/json`, nothing else.
    static func connectURLRequest(endpoint: URL) throws -> TransportRequest {
        try BaseURLPolicy.validate(endpoint)
        return TransportRequest(method: "GET", url: endpoint, headers: [("Accept", "application/json")])
    }

    /// Reads the backend's answer: 2xx `{"connectURL": "..."}`, an absolute URL that is https, or
    /// http to loopback (`BaseURLPolicy`: the merchant signs in to Braintree on that page, so it
    /// must not travel in clear text).
    /// - Throws: `.invalidResponse` for a body that is not a JSON object with a `connectURL`
    ///   string (truncated JSON included), or one that is not a URL, and for a redirect (never
    ///   followed: the page to open comes from the body, not from a `Location`);
    ///   `.configuration` for a connect URL that is not https (or loopback http); `.serverError`
    ///   for 5xx (whatever the body); `.httpStatus` for any other status.
    static func connectURL(from response: TransportResponse, policy: BaseURLPolicy = .standard) throws -> URL {
        let status = response.status
        let json = JSONValue.parse(response.body)
        switch status {
        case 200..<300:
            guard let json, json.objectValue != nil else {
                throw OAuthError.invalidResponse("the connect URL response is not a JSON object", status: status)
            }
            guard let text = json["connectURL"]?.stringValue, !text.isEmpty else {
                throw OAuthError.invalidResponse("the connect URL response has no connectURL", status: status)
            }
            guard let url = URL(string: text), url.scheme != nil else {
                throw OAuthError.invalidResponse("the connectURL is not an absolute URL", status: status)
            }
            do {
                try policy.check(url)
            } catch {
                // Not the policy's own text: it names the host, and the URL is the backend's.
                throw OAuthError.configuration("the connect URL must use https (plain http only to a loopback host)")
            }
            return url
        case 300..<400:
            throw OAuthError.unexpectedRedirect(status: status)
        case 500..<600:
            throw OAuthError.serverError(serverText(json) ?? "the connect URL endpoint failed", status: status)
        default:
            throw OAuthError.httpStatus(serverText(json) ?? "the connect URL endpoint refused the request", status: status)
        }
    }

    private static func serverText(_ json: JSONValue?) -> String? {
        json?.oauthErrorText(secrets: []).flatMap { $0.isEmpty ? nil : $0 }
    }
}
