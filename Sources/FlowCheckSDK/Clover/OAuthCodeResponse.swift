/// What the app's own login produced (Partial OAuth): the code, the verifier it made with the
/// SDK's helper, and the merchant the redirect named.
///
/// Seed 000, "Partial OAuth Flow": "include the Code received from the OAuth Login flow already
/// completed, along with the Challenge information you used with the PKCE flow". Only the verifier
/// is needed from that challenge information: the token endpoint recomputes the challenge from it.
/// Its `description` hides the code and the verifier.
public struct OAuthCodeResponse: Sendable, Equatable, CustomStringConvertible {
    /// The authorization code from the redirect's `code` parameter; single use.
    public var code: String

    /// The PKCE verifier whose challenge went into the authorization request
    /// (`CloverPaymentSDK.makeCodeChallenge().verifier`).
    public var codeVerifier: String

    /// The merchant from the redirect's `merchant_id` parameter.
    public var merchantID: String

    /// Creates a code response.
    /// - Parameters:
    ///   - code: The authorization code.
    ///   - codeVerifier: The PKCE verifier used for that code.
    ///   - merchantID: The merchant the redirect named.
    public init(code: String, codeVerifier: String, merchantID: String) {
        self.code = code
        self.codeVerifier = codeVerifier
        self.merchantID = merchantID
    }

    /// Redacted: the merchant only.
    public var description: String {
        "OAuthCodeResponse(merchantID: \(merchantID), code: \(Redaction.placeholder), codeVerifier: \(Redaction.placeholder))"
    }
}

extension OAuthCodeResponse: CustomDebugStringConvertible, CustomReflectable {
    /// Same as `description`: redacted.
    public var debugDescription: String { description }

    /// A mirror without the code and verifier.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: ["code": Redaction.placeholder, "codeVerifier": Redaction.placeholder, "merchantID": merchantID],
            displayStyle: .struct
        )
    }
}
