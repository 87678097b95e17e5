import Foundation

/// Braintree's client-side connect flow for a native app (seed 002, "Client-side Connect Flow"),
/// in which the device never holds a client secret or a token.
///
/// Seed 002, "iOS OAuth sequence": the merchant taps Connect with Braintree; the app opens a
/// connect URL from its own server in `SFSafariViewController`; "after the merchant has
/// authorized and your server has created an access token, your server redirects the merchant to
/// a URL that is captured by a custom URL scheme in your app". So this type makes one request
/// (the connect URL, from the merchant's backend), opens one page, and judges the URL the app is
/// opened with. It makes no token request, holds no token and stores nothing: it takes no
/// `TokenStore` at all.
///
/// ```swift
/// let connect = BraintreeConnect(
///     configuration: try BraintreeConnectConfiguration(
///         connectURLEndpoint: URL(string: "https://merchant.example.com/braintree/connect-url")!,
///         returnURL: "com.example.merchantapp:/braintree"),
///     transport: URLSessionTransport(), userAgent: safari,
///     notify: { event in NotificationCenter.default.post(name: .braintreeConnectedRedirectNotification, object: event) })
/// @IBAction func connectAction(sender: UIButton) { Task { try await connect.connect() } }
/// // AppDelegate: return await connect.handleOpenURL(url)
/// ```
public actor BraintreeConnect {
    let configuration: BraintreeConnectConfiguration
    let transport: any HTTPTransport
    let userAgent: any ExternalUserAgent
    let notify: @Sendable (BraintreeConnectEvent) -> Void

    /// The return URLs, or nil when the configuration's `returnURL` was changed into one that does
    /// not parse (then `connect` refuses and no URL is accepted).
    let returnURLs: BraintreeReturnURL?

    /// The connect whose page is open and whose return is awaited; nil when none is.
    var connectInProgress: Int?

    /// Source of connect identifiers, so a failed `open` ends only its own connect.
    var connectCount = 0

    /// Creates the connect flow.
    /// - Parameters:
    ///   - configuration: The backend's connect URL endpoint and the app's return URL.
    ///   - transport: The network seam.
    ///   - userAgent: The browser that shows the connect page (`SFSafariViewController` in seed
    ///     002), dismissed when the merchant comes back.
    ///   - notify: Called once per accepted return, on the actor, before `handleOpenURL` returns;
    ///     it stands for seed 002's `NotificationCenter.default.post(name:
    ///     .braintreeConnectedRedirectNotification, object: url)`. Must not block.
    public init(
        configuration: BraintreeConnectConfiguration,
        transport: any HTTPTransport,
        userAgent: any ExternalUserAgent,
        notify: @escaping @Sendable (BraintreeConnectEvent) -> Void
    ) {
        self.configuration = configuration
        self.transport = transport
        self.userAgent = userAgent
        self.notify = notify
        self.returnURLs = try? BraintreeReturnURL(configuration.returnURL)
    }

    /// The Connect button (seed 002, "Send the merchant to Braintree"): `GET` the backend's
    /// endpoint with `Accept: application/json`, read `{"connectURL": "..."}`, and open that URL
    /// with the user agent. The connect counts as in progress from just before the page opens (the
    /// return may arrive while `open` is still suspended) until a return is accepted; a second
    /// `connect` replaces the first.
    /// - Throws: `OAuthError` `.configuration` (the configuration no longer parses, or the connect
    ///   URL is neither https nor loopback http), `.transport`, `.serverError` (5xx),
    ///   `.httpStatus` (any other non-2xx), `.invalidResponse` (no usable `connectURL`, or a 3xx,
    ///   never followed),
    ///   `.authorization` (the browser could not open the page; the connect is then over), or an
    ///   `OAuthError` the user agent threw; `CancellationError`.
    public func connect() async throws {
        guard returnURLs != nil else {
            throw OAuthError.configuration("the Braintree return URL has no scheme, or carries a query or a fragment")
        }
        let request = try BraintreeConnectWire.connectURLRequest(endpoint: configuration.connectURLEndpoint)
        let response = try await transport.sendReportingFailures(request, secrets: [])
        let connectURL = try BraintreeConnectWire.connectURL(from: response, policy: configuration.urlPolicy)
        connectCount += 1
        let identifier = connectCount
        connectInProgress = identifier
        do {
            try await userAgent.open(connectURL)
        } catch {
            if connectInProgress == identifier {
                connectInProgress = nil
            }
            if error is CancellationError || error is OAuthError {
                throw error
            }
            // The user agent's own error text may quote the URL; it is not repeated.
            throw OAuthError.authorization("the browser could not open the Braintree connect page (\(type(of: error)))")
        }
    }

    /// The AppDelegate's open-URL handler (seed 002, "Application delegate"), with the seed's
    /// "ensure the URL is from a trusted source" done for real.
    ///
    /// Accepted only while a connect is in progress, and only for the configured scheme (any
    /// case), host (none for the reverse-domain form) and path plus `/connected` with a non-empty
    /// `merchant_id`, or plus `/failed` with a non-empty `error`, and no credential-like parameter
    /// at all (`BraintreeReturnURL`). Then the connect ends, `notify` is called exactly once with
    /// `.connected` or `.failed`, and the browser is dismissed (seed 002's `braintreeLogin`
    /// callback: `self.safariVC?.dismiss(...)`). Anything else changes nothing.
    /// - Parameter url: The URL the app was opened with.
    /// - Returns: True when the URL was handled; false when it was ignored (no event, nothing
    ///   dismissed), including the same URL a second time.
    public func handleOpenURL(_ url: URL) async -> Bool {
        guard connectInProgress != nil, let event = returnURLs?.event(for: url) else {
            return false
        }
        // Ended before the first suspension, so the same URL delivered twice at once is handled
        // once.
        connectInProgress = nil
        notify(event)
        await userAgent.dismiss()
        return true
    }
}
