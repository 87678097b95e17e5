/// What the app hears when the merchant comes back (seed 002, "Prepare for the merchant to
/// return": the notification that makes the view controller dismiss Safari and move on).
public enum BraintreeConnectEvent: Sendable, Equatable {
    /// The backend created the merchant's access token and sent the merchant back on the
    /// connected URL; `merchantID` is its `merchant_id` parameter. The token itself stays on the
    /// backend.
    case connected(merchantID: String)

    /// The merchant declined or the backend failed, and sent the merchant back on the failed
    /// URL; `error` is its `error` parameter (e.g. `access_denied`), sanitised for display.
    case failed(error: String)
}
