import Foundation

/// Builds the 302 responses that carry a result back to a client's redirect URI, for the
/// fakes that redirect to custom-scheme URLs (`clever-cle1://oauth`,
/// `com.example.merchantapp:/braintree/connected`) as well as to http ones.
enum OAuthRedirect {
    /// `base` with `parameters` appended to its query, every name and value percent-encoded
    /// (RFC 3986 unreserved characters only, so the result reads the same with or without the
    /// '+'-is-space rule).
    ///
    /// A base without a query gets `?`; one whose query is open (ending in `?` or `&`) gets
    /// nothing; any other gets `&`. The base is never parsed or normalised, so a custom
    /// scheme comes back exactly as the client registered it.
    static func location(_ base: String, appending parameters: [(String, String)]) -> String {
        guard !parameters.isEmpty else { return base }
        let query = parameters.map { FormURLEncoding.encodeComponent($0.0) + "=" + FormURLEncoding.encodeComponent($0.1) }
            .joined(separator: "&")
        let separator: String
        if !base.contains("?") {
            separator = "?"
        } else if base.hasSuffix("?") || base.hasSuffix("&") {
            separator = ""
        } else {
            separator = "&"
        }
        return base + separator + query
    }

    /// 302 to `location`, with a courtesy HTML link for clients that do not follow
    /// `Location` themselves and `Cache-Control: no-store` (the URL may carry a code).
    static func response(to location: String) -> HTTPResponse {
        var response = HTMLPage.response(302, HTMLPage.redirect(to: location))
        response.headers.set("Location", location)
        return response
    }
}
