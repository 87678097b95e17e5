import Foundation

/// The platform's browser: the seam through which the SDK shows an authorization page.
///
/// Modelled on AppAuth's `OIDExternalUserAgent`: the core never renders or fetches the
/// authorization page itself, it only asks the user agent to open it, and the result comes back
/// separately, as a redirect URL the app hands to the SDK (seed 000, "Full OAuth Flow": "pass the
/// full URL containing the code back using `receivedOAuthCodeOrToken`"). So `open` returns once
/// the page is shown, not when the user has finished.
///
/// The SDK core ships no implementation: on iOS one would live behind
/// `#if canImport(AuthenticationServices)`, opening the URL with `ASWebAuthenticationSession`
/// (or `UIApplication.open` for the seed's "default browser") and forwarding the callback URL to
/// `CloverPaymentSDK.receivedOAuthCodeOrToken`; tests and the harness use a recording fake that
/// plays the user's part against a fake server.
///
/// ```swift
/// struct SafariUserAgent: ExternalUserAgent {
///     func open(_ url: URL) async throws { await UIApplication.shared.open(url) }
///     func dismiss() async {}
/// }
/// ```
public protocol ExternalUserAgent: Sendable {
    /// Shows the page at `url` to the user.
    /// - Parameter url: The authorization URL, with every query parameter already in place.
    /// - Throws: Any error when the page cannot be shown; the SDK reports it as an `OAuthError`.
    func open(_ url: URL) async throws

    /// Closes what `open` showed, if it can; called once the redirect has been handled. Must not
    /// fail when nothing is open.
    func dismiss() async
}
