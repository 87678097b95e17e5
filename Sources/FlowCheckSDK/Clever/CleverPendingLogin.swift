import Foundation

/// An Instant Login in progress: made by `startLogin`, consumed by the first redirect that
/// carries its `state`.
///
/// In memory only (seed 004, step 2: "create and store a random state parameter for each
/// login"): a relaunch forgets it, so a redirect that arrives afterwards is refused.
struct CleverPendingLogin: Sendable {
    /// The `state` sent with the authorization request (RFC 6749 §10.12).
    let state: String

    /// The redirect URI sent, parsed: a redirect must arrive under it.
    let redirectURL: URL

    /// The redirect URI exactly as sent; the token request repeats it (RFC 6749 §4.1.3).
    let redirectURI: String

    /// The client the login was started for.
    let clientID: String

    /// Where the code is exchanged, fixed when the login started.
    let baseURL: URL
}
