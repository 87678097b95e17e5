/// Why a fake refused a request: one stable id per rule, sent in the `FlowCheck-Rule`
/// response header, kept in ``RecordedExchange/rule`` and shown in reports beside the status.
///
/// A closed set: a new refusal is a new case, so every `switch` over rules is chased by the
/// compiler. Raw values are `layer.endpoint.reason`, never renamed once published.
public enum FlowCheckRule: String, Sendable, CaseIterable, Equatable {
    // MARK: HTTP layer (the parser and the connection)
    case httpMalformedRequestLine = "http.malformed-request-line"
    case httpMalformedField = "http.malformed-field"
    case httpHostRequired = "http.host-required"
    case httpHeadTooLarge = "http.head-too-large"
    case httpTargetTooLong = "http.target-too-long"
    case httpVersionNotSupported = "http.version-not-supported"
    case httpMalformedContentLength = "http.malformed-content-length"
    case httpBodyTooLarge = "http.body-too-large"
    case httpTransferCodingNotSupported = "http.transfer-coding-not-supported"
    case httpChunkedNotFinal = "http.chunked-not-final"
    case httpLengthAndChunked = "http.length-and-chunked"
    case httpMalformedChunk = "http.malformed-chunk"
    case httpTimeout = "http.timeout"

    // MARK: Every persona
    case notFound = "fake.not-found"
    case methodNotAllowed = "fake.method-not-allowed"
    /// A path another of the provider's origins serves.
    case wrongOrigin = "fake.wrong-origin"

    // MARK: Authorize endpoints and login forms (Clover, Clever, Braintree)
    case authorizeRepeatedParameter = "authorize.repeated-parameter"
    case authorizeUnknownClient = "authorize.unknown-client"
    case authorizeRedirectMismatch = "authorize.redirect-mismatch"
    case authorizeResponseType = "authorize.response-type"
    case loginContentType = "login.content-type"
    case loginMalformedBody = "login.malformed-body"
    case loginUnknownRequest = "login.unknown-request"
    case loginBadAction = "login.bad-action"
    case loginBadCredentials = "login.bad-credentials"

    // MARK: Token endpoints (all four)
    case tokenContentType = "token.content-type"
    case tokenMalformedBody = "token.malformed-body"
    case tokenRepeatedParameter = "token.repeated-parameter"
    case tokenParameterMissing = "token.parameter-missing"
    case tokenParameterNotString = "token.parameter-not-string"
    case tokenClientSecretParameter = "token.client-secret-parameter"
    case tokenInvalidClient = "token.invalid-client"
    case tokenUnsupportedGrantType = "token.unsupported-grant-type"
    case tokenCodeUnknown = "token.code-unknown"
    case tokenCodeUsed = "token.code-used"
    case tokenCodeExpired = "token.code-expired"
    case tokenRedirectMismatch = "token.redirect-mismatch"

    // MARK: Moltin
    case moltinRefreshInvalid = "moltin.token.refresh-invalid"
    case moltinProductsTokenMissing = "moltin.products.token-missing"
    case moltinProductsTokenInvalid = "moltin.products.token-invalid"

    // MARK: Clover
    case cloverAuthorizeChallengeMissing = "clover.authorize.challenge-missing"
    case cloverAuthorizeChallengeMethod = "clover.authorize.challenge-method"
    case cloverAuthorizeChallengeMalformed = "clover.authorize.challenge-malformed"
    case cloverLoginNoMerchant = "clover.login.no-merchant"
    case cloverLoginNotInstalled = "clover.login.not-installed"
    case cloverTokenPKCEMismatch = "clover.token.pkce-mismatch"
    case cloverTokenClientSecret = "clover.token.client-secret"
    case cloverRefreshUnknown = "clover.refresh.unknown"
    case cloverRefreshUsed = "clover.refresh.used"
    case cloverRefreshRevoked = "clover.refresh.revoked"
    case cloverRefreshExpired = "clover.refresh.expired"
    case cloverMerchantTokenMissing = "clover.merchant.token-missing"
    case cloverMerchantTokenInvalid = "clover.merchant.token-invalid"

    // MARK: Clever
    case cleverAuthorizeStateRequired = "clever.authorize.state-required"

    // MARK: Braintree
    case braintreeBackendClientSecret = "braintree.backend.client-secret"
    case braintreeBackendHostRequired = "braintree.backend.host-required"
    case braintreeCallbackUnknownState = "braintree.callback.unknown-state"

    /// The response header that carries the rule id.
    public static let header = "FlowCheck-Rule"
}
