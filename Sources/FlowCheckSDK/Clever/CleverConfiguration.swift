import Foundation

/// What `CleverInstantLogin` needs to know: the iOS platform's client ID, its custom redirect URL
/// and where Clever is.
///
/// Seed 004, "Enabling Instant Login for native iOS applications": once the iOS platform is
/// enabled, "you'll find a new custom Redirect URL and Client ID on the Application Settings
/// page". There is no client secret: a native app cannot keep one, and seed 004 step 4 sends a
/// blank one. So nothing here is secret and the `description` need not hide anything.
public struct CleverConfiguration: Sendable {
    /// The iOS platform's client ID (seed 004: "your iOS platform client id"), sent as
    /// `client_id` and as the Basic user name of the token request.
    public var clientID: String

    /// The custom redirect URL Clever registered for the iOS platform, e.g.
    /// `"clever-cle1://oauth"` (seed 004: "your iOS custom redirect url"), sent as
    /// `redirect_uri`; a redirect is accepted only under it.
    public var redirectURI: String

    /// Where Clever is: `https://clever.com` in production; a loopback `http://` base for the
    /// harness's fake server.
    public var baseURL: URL

    /// Creates a configuration.
    /// - Parameters:
    ///   - clientID: The iOS platform's client ID; not empty.
    ///   - redirectURI: The custom redirect URL Clever registered; an absolute URL.
    ///   - baseURL: Clever's base URL; `https://clever.com` unless a test points elsewhere.
    /// - Throws: `OAuthError` `.configuration` when `baseURL` is plain `http://` to a host that is
    ///   not loopback, uses another scheme or has no host (`BaseURLPolicy`: the code and token
    ///   never cross a network in clear text); when `clientID` is empty; or when `redirectURI` is
    ///   not an absolute URL.
    public init(clientID: String, redirectURI: String, baseURL: URL = URL(string: "https://clever.com")!) throws {
        self.clientID = clientID
        self.redirectURI = redirectURI
        self.baseURL = baseURL
        _ = try validatedRedirectURL()
    }

    /// Checks every field again and returns the parsed redirect URI. The fields are `var`s, so a
    /// login re-checks them rather than trusting what `init` saw.
    /// - Throws: `.configuration`, as `init`.
    func validatedRedirectURL() throws -> URL {
        try BaseURLPolicy.validate(baseURL)
        guard !clientID.isEmpty else {
            throw OAuthError.configuration("the Clever client ID is empty")
        }
        return try Self.redirectURL(redirectURI)
    }

    /// `redirectURI` parsed.
    /// - Throws: `.configuration` unless it is an absolute URL with a scheme and a host or path.
    static func redirectURL(_ redirectURI: String) throws -> URL {
        guard let url = URL(string: redirectURI), let scheme = url.scheme, !scheme.isEmpty,
              url.host?.isEmpty == false || !url.path.isEmpty
        else {
            throw OAuthError.configuration("the Clever redirect URI is not an absolute URL")
        }
        return url
    }
}
