/// How much of OAuth the SDK runs for the app (seed 000, "OAuth Type Structs"): `FullOAuth`,
/// `PartialOAuth` or `NoOAuth`.
///
/// A marker protocol, as in the seed; `CloverPaymentSDK.setup` accepts only the three types this
/// module defines and refuses any other conformer with `.configuration`.
public protocol OAuthFlowType: Sendable {}
