extension OAuthError {
    /// The failure class of an `OAuthError`.
    ///
    /// Classified the way the OAuth RFCs classify failures (model: AppAuth `OIDError.h`):
    /// token-endpoint refusals end the session, transport failures are transient and keep it.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Base: String, Sendable, Hashable, CaseIterable {
            case transport
            case serverError
            case invalidResponse
            case tokenEndpoint
            case tokenRejected
            case httpStatus
            case notLoggedIn
            case storage
            case configuration
            case authorization
            case stateMismatch
        }

        private let base: Base

        private init(_ base: Base) {
            self.base = base
        }

        /// The server could not be reached or did not answer: connection refused or reset, DNS
        /// failure, timeout (`DeadlineTransport`'s deadline included), TLS failure.
        ///
        /// Transient: the stored session is kept (RFC 6749 does not define these; they are the
        /// transport's).
        public static let transport = Code(.transport)

        /// The server answered with a 5xx status (RFC 9110 §15.6). Transient; the session is kept.
        public static let serverError = Code(.serverError)

        /// The server's answer could not be understood: not JSON (a truncated body too), or
        /// required fields missing (e.g. no `access_token` in a successful token response, RFC 6749
        /// §5.1), or a redirect where an answer was due ("unexpected redirect"; never followed).
        public static let invalidResponse = Code(.invalidResponse)

        /// The token endpoint refused the request (RFC 6749 §5.2: `invalid_client`,
        /// `invalid_grant`, ...). The message is the server's own, from the response body.
        public static let tokenEndpoint = Code(.tokenEndpoint)

        /// The resource server rejected the access token (RFC 6750 §3.1 `invalid_token`) even after
        /// the single recovery attempt (refresh or re-authentication, then one retry).
        public static let tokenRejected = Code(.tokenRejected)

        /// Any other non-2xx answer from a resource call, e.g. Moltin's 400 "Access token is
        /// required" when no token is sent.
        public static let httpStatus = Code(.httpStatus)

        /// Client-side: there is no usable token and no way to get one (no stored token, or no
        /// remembered credentials to renew it).
        public static let notLoggedIn = Code(.notLoggedIn)

        /// The token store failed to read, write or delete.
        public static let storage = Code(.storage)

        /// The SDK was configured in a way it refuses, e.g. a plain `http://` base URL that is not
        /// loopback.
        public static let configuration = Code(.configuration)

        /// The authorization endpoint answered with an error redirect (RFC 6749 §4.1.2.1, e.g.
        /// `error=access_denied`; the message starts with that code), or its answer cannot be used:
        /// a redirect for another `client_id`, without a `code`, or not under the redirect URI, or
        /// a browser that could not show the page. Raised by the browser-based providers (Clover,
        /// Clever).
        public static let authorization = Code(.authorization)

        /// A redirect's `state` differs from the one sent, or is missing, or no login is in
        /// progress (a replay: state is single use) (RFC 6749 §10.12): a client-side rejection,
        /// made before any token request. Raised by the browser-based providers (Clover, Clever).
        public static let stateMismatch = Code(.stateMismatch)

        /// The code's name, exactly as its static property is spelled (`"transport"`, ...).
        public var name: String { base.rawValue }

        /// Same as `name`.
        public var description: String { name }

        /// Every code the SDK defines, so a harness can check its vocabulary against them.
        public static var allKnown: [Code] { Base.allCases.map(Code.init) }
    }
}
