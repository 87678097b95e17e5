import Foundation

/// What the app tells `CloverPaymentSDK.setup`: where Clover is, who the app is, and how much of
/// OAuth the SDK runs (seed 000, "Configuration Object").
///
/// Its `description` hides the app secret and the API secret.
public struct CloverConfiguration: Sendable, CustomStringConvertible {
    /// The Clover servers to talk to.
    public let environment: CloverEnvironment

    /// The Clover app's ID, sent as `client_id` (seed 000: "used by the OAuth Flow to match
    /// permissions to your app").
    public let appID: String

    /// The Clover app's secret. Kept for the seed's API shape but never sent: the SDK uses the
    /// low-trust PKCE flow, made "specifically for mobile apps where the app secret cannot be kept
    /// secret due to the nature of distributed app binaries" (seed 000, "Partial OAuth Flow").
    public let appSecret: String

    /// The API key for server access (seed 000). Not used by the OAuth flows.
    public let apiKey: String

    /// The API secret for server access (seed 000). Not used by the OAuth flows, never sent.
    public let apiSecret: String

    /// Full, Partial or No OAuth.
    public var oauthFlowType: any OAuthFlowType

    /// Creates a configuration.
    /// - Parameters:
    ///   - environment: The Clover servers.
    ///   - appID: The Clover app's ID; not empty.
    ///   - appSecret: The Clover app's secret (never sent).
    ///   - apiKey: The API key.
    ///   - apiSecret: The API secret (never sent).
    ///   - oauthFlowType: `FullOAuth`, `PartialOAuth` or `NoOAuth`.
    ///   - baseURLPolicy: Which base URLs are accepted; ``BaseURLPolicy/standard`` unless you have
    ///     reason to differ.
    /// - Throws: `OAuthError` `.configuration` when a base URL is plain `http://` to a host that is
    ///   not loopback (HTTPS only, so tokens never cross a network in clear text), uses another
    ///   scheme or has no host; when `appID` is empty; or when a `FullOAuth` redirect URI is not an
    ///   absolute URL.
    public init(
        environment: CloverEnvironment,
        appID: String,
        appSecret: String,
        apiKey: String,
        apiSecret: String,
        oauthFlowType: any OAuthFlowType,
        baseURLPolicy: BaseURLPolicy = .standard
    ) throws {
        try baseURLPolicy.check(environment.webBaseURL)
        try baseURLPolicy.check(environment.apiBaseURL)
        guard !appID.isEmpty else {
            throw OAuthError.configuration("the Clover app ID is empty")
        }
        if let full = oauthFlowType as? FullOAuth {
            _ = try Self.redirectURL(full)
        }
        self.environment = environment
        self.appID = appID
        self.appSecret = appSecret
        self.apiKey = apiKey
        self.apiSecret = apiSecret
        self.oauthFlowType = oauthFlowType
    }

    /// Redacted: the environment, app ID and flow, never a secret.
    public var description: String {
        "CloverConfiguration(environment: \(environment), appID: \(appID), appSecret: \(Redaction.placeholder), "
            + "apiKey: \(Redaction.placeholder), apiSecret: \(Redaction.placeholder), oauthFlowType: \(oauthFlowType))"
    }

    /// The configuration's own secrets, scrubbed from any error text.
    var secrets: [String] {
        var values = [appSecret, apiKey, apiSecret]
        if let none = oauthFlowType as? NoOAuth {
            values.append(none.token)
        }
        if let partial = oauthFlowType as? PartialOAuth, let response = partial.codeResponse {
            values += [response.code, response.codeVerifier]
        }
        return values
    }

    /// The parsed redirect URI of a Full OAuth flow.
    /// - Throws: `.configuration` unless it is an absolute URL with a scheme and a host or path.
    static func redirectURL(_ flow: FullOAuth) throws -> URL {
        guard let url = URL(string: flow.redirectURI), let scheme = url.scheme, !scheme.isEmpty,
              (url.host?.isEmpty == false || !url.path.isEmpty)
        else {
            throw OAuthError.configuration("the FullOAuth redirect URI is not an absolute URL")
        }
        return url
    }
}

extension CloverConfiguration: CustomDebugStringConvertible, CustomReflectable {
    /// Same as `description`: redacted.
    public var debugDescription: String { description }

    /// A mirror without the secrets.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "environment": environment,
                "appID": appID,
                "appSecret": Redaction.placeholder,
                "apiKey": Redaction.placeholder,
                "apiSecret": Redaction.placeholder,
                "oauthFlowType": oauthFlowType,
            ],
            displayStyle: .struct
        )
    }
}
