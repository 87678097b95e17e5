/// The app runs the login itself; the SDK exchanges the code once and then keeps the token fresh
/// (seed 000, "Partial OAuth": "let the SDK manage token refresh moving forward").
public struct PartialOAuth: OAuthFlowType, Equatable {
    /// The new code response, or nil to use the stored session.
    ///
    /// Seed 001: "The PartialOAuth object's OAuthCodeResponse should only be populated once per
    /// code received. On subsequent launches pass in nil".
    public var codeResponse: OAuthCodeResponse?

    /// Creates the flow type.
    /// - Parameter codeResponse: The new code response, or nil.
    public init(codeResponse: OAuthCodeResponse?) {
        self.codeResponse = codeResponse
    }
}
