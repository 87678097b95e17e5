import Foundation

/// The session as the SDK persists it under `CloverPaymentSDK.storeKey`: everything a relaunch
/// needs (seed 000: "stores the token back into Keychain for the next launch").
///
/// Its `description`, debug description and mirror hide both tokens.
public struct CloverStoredSession: Codable, Sendable, Equatable, CustomStringConvertible {
    /// The access token sent as `Authorization: Bearer ...`.
    public var accessToken: String

    /// When the access token stops working (`access_token_expiration`), or nil when unknown
    /// (No OAuth: the app handed over the token without its expiry).
    public var accessTokenExpiration: Date?

    /// The refresh token (Full and Partial OAuth); nil in No OAuth. Clover rotates it: each one
    /// works once.
    public var refreshToken: String?

    /// When the refresh token stops working (`refresh_token_expiration`), or nil when unknown.
    public var refreshTokenExpiration: Date?

    /// The merchant the tokens were issued for, from the redirect's `merchant_id`.
    public var merchantID: String

    /// Creates a session.
    /// - Parameters:
    ///   - accessToken: The access token.
    ///   - accessTokenExpiration: Its expiry, if known.
    ///   - refreshToken: The refresh token, if any.
    ///   - refreshTokenExpiration: Its expiry, if known.
    ///   - merchantID: The merchant.
    public init(
        accessToken: String,
        accessTokenExpiration: Date? = nil,
        refreshToken: String? = nil,
        refreshTokenExpiration: Date? = nil,
        merchantID: String
    ) {
        self.accessToken = accessToken
        self.accessTokenExpiration = accessTokenExpiration
        self.refreshToken = refreshToken
        self.refreshTokenExpiration = refreshTokenExpiration
        self.merchantID = merchantID
    }

    /// Whether the access token should be refreshed before use at `now`: from `margin` seconds
    /// before its expiry on. False when the expiry is unknown.
    func accessTokenNeedsRefresh(at now: Date, margin: TimeInterval) -> Bool {
        guard let accessTokenExpiration else { return false }
        return now >= accessTokenExpiration.addingTimeInterval(-margin)
    }

    /// Whether the access token has expired at `now`: such a token is never sent.
    func accessTokenIsExpired(at now: Date) -> Bool {
        accessTokenNeedsRefresh(at: now, margin: 0)
    }

    /// Whether the session can no longer yield a usable access token at `now`: its refresh token
    /// is known to have expired, or it has none and the access token is known to have expired.
    /// Unknown expiries count as alive: only the server can say otherwise.
    func isDead(at now: Date) -> Bool {
        if refreshToken != nil {
            guard let refreshTokenExpiration else { return false }
            return now >= refreshTokenExpiration
        }
        return accessTokenIsExpired(at: now)
    }

    /// The tokens, for scrubbing from error text.
    var secrets: [String] {
        [accessToken, refreshToken].compactMap { $0 }
    }

    /// A redacted summary: the merchant and expiries, both tokens hidden.
    public var description: String {
        let access = accessTokenExpiration.map { "\($0.timeIntervalSince1970)" } ?? "nil"
        let refreshExpiry = refreshTokenExpiration.map { "\($0.timeIntervalSince1970)" } ?? "nil"
        let refresh = refreshToken == nil ? "nil" : Redaction.placeholder
        return "CloverStoredSession(merchantID: \(merchantID), accessToken: \(Redaction.placeholder), "
            + "accessTokenExpiration: \(access), refreshToken: \(refresh), refreshTokenExpiration: \(refreshExpiry))"
    }
}

extension CloverStoredSession: CustomDebugStringConvertible, CustomReflectable {
    /// Same as `description`: redacted.
    public var debugDescription: String { description }

    /// A mirror without the token values, so `dump` and debuggers do not print them.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "accessToken": Redaction.placeholder,
                "accessTokenExpiration": accessTokenExpiration as Any,
                "refreshToken": (refreshToken == nil ? nil : Redaction.placeholder) as Any,
                "refreshTokenExpiration": refreshTokenExpiration as Any,
                "merchantID": merchantID,
            ],
            displayStyle: .struct
        )
    }
}
