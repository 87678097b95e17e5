import Foundation

/// The app's return URLs, parsed from `BraintreeConnectConfiguration.returnURL`, and the judge of
/// a URL the app was opened with, without I/O.
///
/// Seed 002, "Application delegate": "Define a function to handle the custom URL in your
/// AppDelegate that will ensure the URL is from a trusted source and broadcast an event". The
/// seed's sample posts every URL; this is the check it leaves out. Trusted means: exactly the
/// configured scheme, host and path plus `/connected` or `/failed`, with the parameter that path
/// needs, and no credential at all, since in the client-side flow the backend never sends one to
/// the device.
struct BraintreeReturnURL: Sendable {
    /// `returnURL + "/connected"`.
    let connected: URL

    /// `returnURL + "/failed"`.
    let failed: URL

    /// Parses `returnURL`.
    /// - Throws: `.configuration` when it has no scheme, or carries a query or a fragment.
    init(_ returnURL: String) throws {
        guard let url = URL(string: returnURL), let scheme = url.scheme, !scheme.isEmpty else {
            throw OAuthError.configuration("the Braintree return URL has no scheme")
        }
        guard url.query == nil, url.fragment == nil else {
            throw OAuthError.configuration("the Braintree return URL must not carry a query or a fragment")
        }
        var base = returnURL
        // "examplescheme://braintree/" names the same place as "examplescheme://braintree";
        // "examplescheme://" keeps its slashes (they are not a path).
        if base.hasSuffix("/") && !base.hasSuffix("//") {
            base.removeLast()
        }
        guard let connected = URL(string: base + "/connected"), let failed = URL(string: base + "/failed") else {
            throw OAuthError.configuration("the Braintree return URL cannot be extended with /connected")
        }
        self.connected = connected
        self.failed = failed
    }

    /// The event `url` stands for, or nil when it is not from the trusted source: another scheme,
    /// host, port or path; a fragment; a malformed query or a repeated parameter; a
    /// credential-like parameter (`isCredentialLike`); a connected URL without a non-empty
    /// `merchant_id`, or a failed URL without a non-empty `error`.
    func event(for url: URL) -> BraintreeConnectEvent? {
        guard url.fragment == nil else { return nil }
        let isConnected = CallbackURL.isUnder(url, expected: connected)
        guard isConnected || CallbackURL.isUnder(url, expected: failed) else { return nil }
        guard case .success(let parameters) = CallbackURL.parameters(of: url),
              !parameters.keys.contains(where: Self.isCredentialLike)
        else { return nil }
        if isConnected {
            guard let merchantID = parameters["merchant_id"], !merchantID.isEmpty else { return nil }
            return .connected(merchantID: merchantID)
        }
        guard let error = parameters["error"].map({ Redaction.serverMessage($0, secrets: []) }), !error.isEmpty else {
            return nil
        }
        return .failed(error: error)
    }

    /// Whether a parameter name looks like it carries a credential: a token, a secret, a
    /// password, a PKCE verifier, or an authorization code (a name starting or ending with
    /// `code`: `code`, `code_verifier`, `auth_code`, `authCode`), in any case.
    ///
    /// Seed 002's client-side flow exists so the device never holds one ("avoids exposing your
    /// client_secret"; the server "has created an access token" before it redirects), so a URL
    /// carrying one did not come from the merchant's backend, or the backend leaks: either way it
    /// is not acted on. Broad on purpose; a backend reports with `merchant_id`, `error` and
    /// `error_description`, which pass (`error_code` would not).
    static func isCredentialLike(_ name: String) -> Bool {
        let lowered = name.lowercased()
        for fragment in ["token", "secret", "password", "verifier"] where lowered.contains(fragment) {
            return true
        }
        return lowered.hasPrefix("code") || lowered.hasSuffix("code")
    }
}
