import FlowCheckSpec

/// One thing the seeds or the RFCs require of an SDK, under a stable id that checks cite.
public struct Requirement: Sendable, Equatable {
    /// `SEED-00N-word` for a seed passage, `RFCNNNN-S.S` for an RFC section.
    public var id: String
    /// What it requires, in one line of our own words.
    public var statement: String
    /// Where it comes from, e.g. "RFC 7636 §4.6" or "seed 003, 'Refreshing a token'".
    public var source: String

    /// A requirement as the catalogue lists it.
    public init(_ id: String, _ statement: String, source: String) {
        self.id = id
        self.statement = statement
        self.source = source
    }
}

/// The one list of requirement ids. Specs cite them (`"requirements"` at the flow and the step),
/// invariants cite them (`Invariant.requirements`), and the Markdown report ends with a matrix of
/// every one of them: which flows and invariants check it, or "uncovered". An id never changes
/// meaning once published; a requirement nothing checks stays listed, so the gap shows.
public enum RequirementCatalogue {
    /// Every requirement: the seeds first, by seed number, then the RFCs by number and section.
    public static let all: [Requirement] = seeds + rfcs

    /// The spec module's view of the catalogue: the ids a spec may cite.
    public static let ids = RequirementCatalog(all.map(\.id))

    /// The requirement with `id`, if the catalogue has it.
    public static func requirement(_ id: String) -> Requirement? {
        all.first { $0.id == id }
    }

    private static let seeds: [Requirement] = [
        // Seed 000: Clover Go SDK, "OAuth Flow".
        Requirement("SEED-000-full-login", "With no valid stored token, setup opens the login page in the browser, takes the redirect back, exchanges its code, stores the token and calls the token-change callback.", source: "seed 000, 'Full OAuth Flow', steps 4-6"),
        Requirement("SEED-000-pkce", "A mobile app cannot keep its app secret, so its logins use the low-trust (PKCE) flow and the secret stays off the wire.", source: "seed 000, 'use the Low Trust Apps flow'"),
        Requirement("SEED-000-refresh", "The SDK renews the short-lived (about 30 minutes) token itself before using it, so the app always has a usable one.", source: "seed 000, Full and Partial OAuth 'Pros'; No OAuth 'Cons'"),
        Requirement("SEED-000-partial-first", "Given the app's own code and PKCE challenge, setup exchanges the code with the matching verifier, stores the token and calls the callback.", source: "seed 000, 'Partial OAuth Flow', First Launch"),
        Requirement("SEED-000-partial-later", "Given no new code, setup uses the stored token with no exchange, and says clearly when there is none.", source: "seed 000, 'Partial OAuth Flow', Subsequent Launches"),
        Requirement("SEED-000-no-oauth", "With a token supplied by the app, the SDK uses it as given and never logs in or refreshes on its own.", source: "seed 000, 'NoOAuth'"),
        Requirement("SEED-000-update-token", "A token supplied by the app (setup or updateToken) is checked against the merchant before use; a refused one changes nothing.", source: "seed 000, 'updateToken'"),
        Requirement("SEED-000-logout", "logout deletes the stored credentials, ends what was in progress and calls the token-change callbacks.", source: "seed 000, 'logout'"),
        Requirement("SEED-000-callback", "Token-change callbacks run once for each change: a new, refreshed, deleted or invalidated token, and not otherwise.", source: "seed 000, 'addOnTokenChangeCallback'"),
        Requirement("SEED-000-remove-callback", "Removing a callback answers true only for a known identifier, and a removed callback no longer runs.", source: "seed 000, 'removeOnTokenChangeCallback'"),
        Requirement("SEED-000-environment", "Every server call goes to the hosts of the configured environment (sandbox or production).", source: "seed 000, 'Sandbox', 'Production' and Configuration.environment"),
        Requirement("SEED-000-merchant", "A login the server refuses (wrong password, unknown employee, app not installed on the merchant) leaves the SDK logged out.", source: "seed 000, the merchant and employee requirements"),
        // Seed 001: Clover "iOS - OAuth on mobile".
        Requirement("SEED-001-recover", "The token is kept in secure storage across launches; a valid one found there completes setup with no login and no token request.", source: "seed 001, 'OAuth flow', steps 3 and 6"),
        Requirement("SEED-001-redirect", "Only the redirect of this login, for this app, on its registered redirect URI is exchanged; any other is refused with no request.", source: "seed 001, 'OAuth flow', step 5"),
        Requirement("SEED-001-site-url", "The redirect URI must share the base of the app's configured site URL; one outside it is refused at authorization.", source: "seed 001, site URL and redirect URI"),
        Requirement("SEED-001-code-once", "A code is handed to the SDK once; a second use of the same code is refused and the good token kept.", source: "seed 001, PartialOAuth: 'populated once per code received'"),
        // Seed 002: Braintree client-side connect.
        Requirement("SEED-002-connect-url", "The connect URL comes from the merchant's own server and opens in an in-app browser; an unusable one opens nothing.", source: "seed 002, 'Send the merchant to Braintree'"),
        Requirement("SEED-002-server-secret", "The client secret stays on the merchant's server: the server, not the device, creates the access token.", source: "seed 002, 'iOS OAuth sequence'"),
        Requirement("SEED-002-trusted", "Only a return URL from the trusted source, with its expected parameters, is acted on; any other is ignored.", source: "seed 002, 'Application delegate'"),
        Requirement("SEED-002-notify", "A handled return broadcasts exactly one notification that says how the connect ended.", source: "seed 002, 'Prepare for the merchant to return'"),
        Requirement("SEED-002-dismiss", "The in-app browser is dismissed when the merchant comes back, whatever the answer.", source: "seed 002, the braintreeLogin callback"),
        // Seed 003: Moltin API authentication tutorial.
        Requirement("SEED-003-auth", "Auth posts a client_credentials grant with client_id and client_secret to oauth/access_token and stores the token it gets.", source: "seed 003, 'Obtaining a new token'"),
        Requirement("SEED-003-refresh", "Refresh posts a refresh_token grant with the client credentials and the stored refresh token, and stores the new token.", source: "seed 003, 'Refreshing a token'"),
        Requirement("SEED-003-bearer", "API calls carry the stored token in an 'Authorization: Bearer' header and hand back the decoded answer.", source: "seed 003, 'Using a valid token'"),
        Requirement("SEED-003-delete", "Delete Token empties the store, and later API calls report the missing token as an error.", source: "seed 003, 'Delete Token'; 'a 400 response is received when the token is not available'"),
        Requirement("SEED-003-invalid-token", "The 'Access token is not valid' answer is recognised as a refused token and recovered from once with a new token.", source: "seed 003, 'Using an expired token'"),
        Requirement("SEED-003-expiry", "Tokens last an hour: at expiry a new token is obtained before any other request, and an expired one is never sent.", source: "seed 003, 'Token Storage' and 'Exercises: Add token expiration code'"),
        Requirement("SEED-003-bad-auth", "A refused Auth surfaces the server's message and keeps the token and credentials already stored.", source: "seed 003, 'Bad Auth'"),
        Requirement("SEED-003-encoding", "Form values are percent-encoded so reserved and non-ASCII characters reach the server unchanged.", source: "seed 003, 'Percent Escaping String' and 'String Output Dictionary'"),
        Requirement("SEED-003-keychain", "The token lives in the platform's safest store, survives a relaunch, and a failed write is reported and leaves the old token.", source: "seed 003, 'Keychain Wrapper'"),
        Requirement("SEED-003-one-renewal", "Calls that need a new token at the same time share one renewal instead of racing.", source: "seed 003, 'Moltin API interface': the shared instance 'to prevent any racing problems'"),
        Requirement("SEED-003-errors", "A network failure, an error status or a body that does not parse is reported as an error value, never a crash.", source: "seed 003, 'Moltin API interface' (getProducts)"),
        // Seed 004: Clever Instant Login for native iOS apps.
        Requirement("SEED-004-redirect", "Logins use the app's registered custom redirect URL; a redirect anywhere else is refused.", source: "seed 004, 'Register the custom redirect URL'"),
        Requirement("SEED-004-state", "Each login creates and stores a fresh random state and accepts the return only when it matches, and only once.", source: "seed 004, 'Step 2 - Set the state parameter'"),
        Requirement("SEED-004-authorize", "A login opens the authorize URL in a browser with response_type, client_id, redirect_uri and state.", source: "seed 004, 'Step 3 - Initiating a login'"),
        Requirement("SEED-004-basic-auth", "The token request authenticates with HTTP Basic of the client id and a blank secret.", source: "seed 004, 'Step 4 - Requesting a token'"),
    ]

    private static let rfcs: [Requirement] = [
        Requirement("RFC3986-6.2.2", "Case in a URI's scheme and host, and percent-encoded unreserved characters, do not make it another URI: a comparison normalises them.", source: "RFC 3986 §6.2.2"),
        Requirement("RFC6585-4", "A 429 answer asks the client to slow down; it says nothing about the credentials, so none are dropped.", source: "RFC 6585 §4"),
        Requirement("RFC6749-2.3", "A client uses exactly one authentication method in a request, never two.", source: "RFC 6749 §2.3"),
        Requirement("RFC6749-2.3.1", "Client id and secret go in an HTTP Basic header of their form-encoded values, or in the request body, never in the URI.", source: "RFC 6749 §2.3.1"),
        Requirement("RFC6749-3.1", "The authorization endpoint is reached over TLS, and no parameter appears twice in a request or a response.", source: "RFC 6749 §3.1"),
        Requirement("RFC6749-3.1.2", "The authorization response is delivered only to the client's registered redirection URI.", source: "RFC 6749 §3.1.2"),
        Requirement("RFC6749-4.1.1", "The authorization request carries response_type=code, client_id, redirect_uri and state.", source: "RFC 6749 §4.1.1"),
        Requirement("RFC6749-4.1.2", "The authorization response returns the code with the exact state; a code is short-lived and used once; the client ignores response parameters it does not recognise.", source: "RFC 6749 §4.1.2"),
        Requirement("RFC6749-4.1.2.1", "An error response (access_denied and the like) carrying this login's state ends the login as an authorization error.", source: "RFC 6749 §4.1.2.1"),
        Requirement("RFC6749-4.1.3", "The code is exchanged with grant_type=authorization_code, the code, the redirect URI and the client id.", source: "RFC 6749 §4.1.3"),
        Requirement("RFC6749-4.4", "A confidential client obtains a token for itself with the client_credentials grant.", source: "RFC 6749 §4.4"),
        Requirement("RFC6749-5.1", "A token response gives access_token, token_type and expires_in, and the client honours the expiry.", source: "RFC 6749 §5.1"),
        Requirement("RFC6749-5.2", "Only an error response from the token endpoint (invalid_grant, invalid_client, ...) is a refusal of the grant or the client.", source: "RFC 6749 §5.2"),
        Requirement("RFC6749-6", "A refresh sends grant_type=refresh_token with the refresh token and keeps the refresh token the server returns, or the old one if none.", source: "RFC 6749 §6"),
        Requirement("RFC6749-10.1", "A public client's secret is not a secret: the client is not authenticated by it, and it must not leak further.", source: "RFC 6749 §10.1"),
        Requirement("RFC6749-10.3", "Access tokens are kept confidential in transit and at rest, and shown to nobody but their resource server.", source: "RFC 6749 §10.3"),
        Requirement("RFC6749-10.5", "Authorization codes are kept confidential, are short-lived and are used once.", source: "RFC 6749 §10.5"),
        Requirement("RFC6749-10.10", "Values that must not be guessed (state, verifiers, tokens) have enough entropy.", source: "RFC 6749 §10.10"),
        Requirement("RFC6749-10.12", "The client binds each authorization request to its response with state and refuses a response whose state does not match.", source: "RFC 6749 §10.12"),
        Requirement("RFC6749-10.16", "A redirect that carries tokens or secrets it should not is refused, so a token injected by an attacker is never used.", source: "RFC 6749 §10.16"),
        Requirement("RFC6750-2.1", "A bearer token is sent in the Authorization request header with the Bearer scheme.", source: "RFC 6750 §2.1"),
        Requirement("RFC6750-3.1", "A resource server's invalid_token refusal means the token is no good: the client obtains a new one or reports it.", source: "RFC 6750 §3.1"),
        Requirement("RFC6750-5.3", "Bearer tokens travel only over TLS to the party meant to receive them, and never in page URLs.", source: "RFC 6750 §5.3"),
        Requirement("RFC6819-5.3.3", "Secrets on the device are kept in storage only the app can read.", source: "RFC 6819 §5.3.3"),
        Requirement("RFC7636-4.1", "The code verifier is a fresh high-entropy string of 43 to 128 unreserved characters.", source: "RFC 7636 §4.1"),
        Requirement("RFC7636-4.2", "The code challenge is BASE64URL(SHA256(verifier)) with the method S256.", source: "RFC 7636 §4.2"),
        Requirement("RFC7636-4.3", "The authorization request carries code_challenge and code_challenge_method.", source: "RFC 7636 §4.3"),
        Requirement("RFC7636-4.5", "The token request carries the code_verifier of the login that got the code.", source: "RFC 7636 §4.5"),
        Requirement("RFC7636-4.6", "The server issues a token only when the verifier hashes to the challenge of the authorization request.", source: "RFC 7636 §4.6"),
        Requirement("RFC7636-7.1", "Verifiers have enough entropy that they cannot be guessed.", source: "RFC 7636 §7.1"),
        Requirement("RFC8252-6", "A native app sends the user to the authorization server in a browser and takes the response back through its redirect.", source: "RFC 8252 §6"),
        Requirement("RFC8252-7.1", "A private-use URI scheme redirect uses a reverse-domain scheme, and the redirect is recognised by scheme and path.", source: "RFC 8252 §7.1"),
        Requirement("RFC8252-7.2", "A claimed https redirect reaches the app through the operating system's link association for the app's own domain.", source: "RFC 8252 §7.2"),
        Requirement("RFC8252-7.3", "A loopback address is the IP literal 127.0.0.1 or [::1] with any port, never a name that only looks like one.", source: "RFC 8252 §7.3"),
        Requirement("RFC8252-8.1", "A native app protects its authorization code with PKCE.", source: "RFC 8252 §8.1"),
        Requirement("RFC8252-8.3", "Plain http is only for the loopback interface, named by IP literal.", source: "RFC 8252 §8.3"),
        Requirement("RFC8252-8.5", "A secret shipped in a native app is not confidential, so the app does not depend on it and sends no secret it was not meant to hold.", source: "RFC 8252 §8.5"),
        Requirement("RFC8252-8.9", "A native app uses state to protect its redirect against cross-app request forgery.", source: "RFC 8252 §8.9"),
        Requirement("RFC8252-8.12", "A native app does not log users in through an embedded web view it controls.", source: "RFC 8252 §8.12"),
        Requirement("RFC9110-15.4", "A client does not follow redirections blindly, and stops a redirect loop.", source: "RFC 9110 §15.4"),
        Requirement("RFC9110-10.2.3", "Retry-After tells how long the client ought to wait before a follow-up request: a retry comes no sooner.", source: "RFC 9110 §10.2.3"),
        Requirement("RFC9110-15.6", "A 5xx answer is a server failure, not a verdict on the request's credentials.", source: "RFC 9110 §15.6"),
        Requirement("RFC9112-6.3", "A response cut short of its announced length is incomplete and is not used.", source: "RFC 9112 §6.3"),
        Requirement("RFC9700-2.1", "Redirect URIs are matched exactly, and every redirect-based flow is protected against CSRF.", source: "RFC 9700 §2.1"),
        Requirement("RFC9700-2.1.1", "Public clients use PKCE with S256 for the authorization code grant.", source: "RFC 9700 §2.1.1"),
        Requirement("RFC9700-2.2.2", "A public client's refresh tokens are rotated (or sender-constrained), so a replayed old one is refused.", source: "RFC 9700 §2.2.2"),
        Requirement("RFC9700-2.4", "The resource owner password grant is not used: the user's password goes only to the authorization server's own page.", source: "RFC 9700 §2.4"),
        Requirement("RFC9700-2.6", "Authorization responses and credentials travel only over TLS, except to loopback.", source: "RFC 9700 §2.6"),
    ]
}
