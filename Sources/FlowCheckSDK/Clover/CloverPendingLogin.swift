import Foundation

/// A Full OAuth login in progress: made when `setup` opens the browser, consumed by the redirect
/// that carries its `state`.
///
/// Kept in memory only: a relaunch forgets it, so a redirect that arrives after a relaunch is
/// refused (its verifier is gone anyway) and the next `setup` starts a new login.
struct CloverPendingLogin: Sendable {
    /// The `state` sent with the authorization request (RFC 6749 §10.12).
    let state: String

    /// The verifier whose challenge was sent; the token request proves it (RFC 7636 §4.5).
    let pkce: PKCE

    /// The redirect URI sent, parsed: a redirect must arrive under it.
    let redirectURL: URL

    /// The client the login was started for; its code is exchanged for the same one.
    let appID: String

    /// Where the code is exchanged, fixed when the login started so a later `setup` with another
    /// environment cannot redirect the code elsewhere.
    let apiBaseURL: URL

    /// Values that must not appear in error text.
    var secrets: [String] { [pkce.verifier] }
}
