/// How a `CloverPaymentSDK.setup` call ended.
public enum CloverSetupOutcome: Sendable, Equatable {
    /// A usable session exists and the merchant was fetched with it: the SDK is initialised.
    case ready(CloverMerchant)

    /// Full OAuth found no session and opened the login page. The app learns of the login through
    /// its token-change callback and then calls `setup` again (seed 001, "OAuth flow" step 6).
    case loginStarted
}
