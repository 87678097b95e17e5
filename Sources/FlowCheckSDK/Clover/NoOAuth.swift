/// The app manages the whole OAuth flow and hands the SDK an access token; the SDK never logs in
/// or refreshes (seed 000, "No OAuth": "the SDK will rely on the passed in token, and will not
/// attempt any OAuth or token refresh operations").
///
/// Its `description` hides the token.
public struct NoOAuth: OAuthFlowType, Equatable, CustomStringConvertible {
    /// The access token to use for API calls.
    public var token: String

    /// The merchant the token belongs to.
    ///
    /// DECISION: the seed is silent on how the SDK learns the merchant in No OAuth; the app knows
    /// it from its own flow's redirect, so it passes it with the token.
    public var merchantID: String

    /// Creates the flow type.
    /// - Parameters:
    ///   - token: The access token.
    ///   - merchantID: The merchant the token was issued for.
    public init(token: String, merchantID: String) {
        self.token = token
        self.merchantID = merchantID
    }

    /// Redacted: the merchant only.
    public var description: String {
        "NoOAuth(merchantID: \(merchantID), token: \(Redaction.placeholder))"
    }
}

extension NoOAuth: CustomDebugStringConvertible, CustomReflectable {
    /// Same as `description`: redacted.
    public var debugDescription: String { description }

    /// A mirror without the token.
    public var customMirror: Mirror {
        Mirror(self, children: ["token": Redaction.placeholder, "merchantID": merchantID], displayStyle: .struct)
    }
}
