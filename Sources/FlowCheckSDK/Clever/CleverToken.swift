/// The bearer token Clever issues at the end of Instant Login (seed 004, "Step 5: Acquiring the
/// token": "an access token, which your app can use to access information in Clever's API").
///
/// Stored as JSON under `CleverInstantLogin.storeKey`. Its `description`, debug description and
/// mirror hide the access token, so printing or `dump`ing it reveals nothing.
public struct CleverToken: Codable, Sendable, Equatable, CustomStringConvertible {
    /// The access token, sent to Clever's API as `Authorization: Bearer ...`.
    public var accessToken: String

    /// The token type Clever named, normally `"bearer"` (RFC 6749 §7.1, RFC 6750).
    public var tokenType: String

    /// Creates a token.
    /// - Parameters:
    ///   - accessToken: The access token.
    ///   - tokenType: The token type.
    public init(accessToken: String, tokenType: String) {
        self.accessToken = accessToken
        self.tokenType = tokenType
    }

    /// Redacted: the token type only.
    public var description: String {
        "CleverToken(tokenType: \(tokenType), accessToken: \(Redaction.placeholder))"
    }
}

extension CleverToken: CustomDebugStringConvertible, CustomReflectable {
    /// Same as `description`: redacted.
    public var debugDescription: String { description }

    /// A mirror without the access token.
    public var customMirror: Mirror {
        Mirror(self, children: ["tokenType": tokenType, "accessToken": Redaction.placeholder], displayStyle: .struct)
    }
}
