import Foundation

/// A token as the SDK persists it (JSON-encoded in a `TokenStore`).
///
/// Its `description`, debug description and mirror are redacted so printing or `dump`ing a token
/// never reveals the access or refresh token.
public struct StoredToken: Codable, Sendable, Equatable, CustomStringConvertible {
    /// The access token sent as `Authorization: Bearer ...`.
    public var accessToken: String

    /// The token type the server named, normally `"Bearer"` (RFC 6750).
    public var tokenType: String

    /// When the access token stops working, or nil when the server gave no lifetime and the SDK
    /// assigned none.
    public var expiresAt: Date?

    /// The refresh token, when the server issued one (Moltin's does not; Clover's rotates).
    public var refreshToken: String?

    /// The granted scope, when the server named one.
    public var scope: String?

    /// Creates a token.
    /// - Parameters:
    ///   - accessToken: The access token.
    ///   - tokenType: The token type; defaults to `"Bearer"`.
    ///   - expiresAt: The expiry instant, if known.
    ///   - refreshToken: The refresh token, if any.
    ///   - scope: The granted scope, if any.
    public init(
        accessToken: String,
        tokenType: String = "Bearer",
        expiresAt: Date? = nil,
        refreshToken: String? = nil,
        scope: String? = nil
    ) {
        self.accessToken = accessToken
        self.tokenType = tokenType
        self.expiresAt = expiresAt
        self.refreshToken = refreshToken
        self.scope = scope
    }

    /// Whether the token should be renewed before use at `now`.
    /// - Parameters:
    ///   - now: The current instant, from the injected time source.
    ///   - margin: Seconds before expiry from which the token counts as due (covers clock skew and
    ///     the request's own travel time).
    /// - Returns: True when `now >= expiresAt - margin`; false when the expiry is unknown.
    public func needsRefresh(at now: Date, margin: TimeInterval) -> Bool {
        guard let expiresAt else { return false }
        return now >= expiresAt.addingTimeInterval(-margin)
    }

    /// Whether the token has expired at `now` (no margin): such a token must never be sent.
    /// - Parameter now: The current instant, from the injected time source.
    /// - Returns: True when `now >= expiresAt`; false when the expiry is unknown.
    public func isExpired(at now: Date) -> Bool {
        needsRefresh(at: now, margin: 0)
    }

    /// A redacted summary: the type, expiry and scope, with both tokens hidden.
    public var description: String {
        let expiry = expiresAt.map { "\($0.timeIntervalSince1970)" } ?? "nil"
        let refresh = refreshToken == nil ? "nil" : Redaction.placeholder
        let scopeText = scope.map { "\"\($0)\"" } ?? "nil"
        return "StoredToken(tokenType: \(tokenType), expiresAt: \(expiry), accessToken: \(Redaction.placeholder), "
            + "refreshToken: \(refresh), scope: \(scopeText))"
    }
}

extension StoredToken: CustomDebugStringConvertible, CustomReflectable {
    /// Same as `description`: redacted.
    public var debugDescription: String { description }

    /// A mirror without the token values, so `dump` and debuggers do not print them.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "tokenType": tokenType,
                "expiresAt": expiresAt as Any,
                "accessToken": Redaction.placeholder,
                "refreshToken": (refreshToken == nil ? nil : Redaction.placeholder) as Any,
                "scope": scope as Any,
            ],
            displayStyle: .struct
        )
    }
}
