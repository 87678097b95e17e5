/// The words a spec may use: app actions per provider, error kinds, faults, server operations.
///
/// The loader checks every spec against these lists, so a typo is caught before anything runs,
/// and the lists are what "did you mean" suggests from.
public enum Vocabulary {
    /// An app action: what the driver must do, and its arguments.
    public struct ActionSignature: Sendable {
        public var name: String
        public var required: [String]
        public var optional: [String]
        /// What the call stands for, as reports say it after the call ("the tutorial's Products").
        public var summary: String
        /// The result fields the driver reports; an entry ending in "." is a prefix ("fired.").
        public var results: [String] = []
    }

    /// The fields a provider's driver reports from the SDK's token store.
    public static func storeFields(for provider: Provider) -> [String] {
        switch provider {
        case .moltin: return ["accessToken", "refreshToken", "tokenType", "expiresAt", "scope"]
        case .clover: return ["accessToken", "accessTokenExpiration", "refreshToken", "refreshTokenExpiration", "merchantId"]
        case .clever: return ["accessToken", "tokenType"]
        // The device holds no token in the Braintree flow: there is nothing to store.
        case .braintree: return []
        }
    }

    /// The app actions a provider's driver understands.
    public static func actions(for provider: Provider) -> [ActionSignature] {
        switch provider {
        case .moltin:
            return [
                ActionSignature(name: "auth", required: ["clientId", "clientSecret"], optional: [], summary: "the tutorial's Auth / Bad Auth: client credentials for a token", results: ["accessToken", "refreshToken", "tokenType", "expiresAt", "scope"]),
                ActionSignature(name: "refreshToken", required: [], optional: [], summary: "the tutorial's Refresh Token exercise", results: ["accessToken", "refreshToken", "tokenType", "expiresAt", "scope"]),
                ActionSignature(name: "deleteToken", required: [], optional: [], summary: "the tutorial's Delete Token"),
                ActionSignature(name: "products", required: [], optional: [], summary: "the tutorial's Products", results: ["productCount", "productIds", "productTitles"]),
                ActionSignature(name: "relaunch", required: [], optional: [], summary: "a relaunch: a new SDK instance over the same token store"),
            ]
        case .clover:
            return [
                ActionSignature(name: "addTokenCallback", required: ["label"], optional: [], summary: "addOnTokenChangeCallback; the driver counts its calls under the label", results: ["id"]),
                ActionSignature(name: "removeTokenCallback", required: ["label"], optional: [], summary: "removeOnTokenChangeCallback with the id the label was given (an unknown label passes an unknown id)", results: ["removed"]),
                ActionSignature(name: "setupFull", required: ["appId", "appSecret", "redirectURI"], optional: [], summary: "setup with FullOAuth(redirectURI)", results: ["outcome", "merchantId", "merchantName"]),
                ActionSignature(name: "setupPartial", required: ["appId", "appSecret"], optional: ["code", "codeVerifier", "merchantId"], summary: "setup with PartialOAuth(codeResponse), nil when no code is given", results: ["outcome", "merchantId", "merchantName"]),
                ActionSignature(name: "setupNone", required: ["appId", "appSecret", "token", "merchantId"], optional: [], summary: "setup with NoOAuth(token)", results: ["outcome", "merchantId", "merchantName"]),
                ActionSignature(name: "receiveRedirect", required: ["url"], optional: [], summary: "receivedOAuthCodeOrToken with the URL the app was opened with"),
                ActionSignature(name: "updateToken", required: ["token"], optional: [], summary: "updateToken in No OAuth"),
                ActionSignature(name: "logout", required: [], optional: [], summary: "logout"),
                ActionSignature(name: "status", required: [], optional: [], summary: "reads isLoggedIn and how often each callback fired", results: ["isLoggedIn", "fired."]),
                ActionSignature(name: "merchant", required: [], optional: ["concurrent"], summary: "an API call that needs the token: the merchant, by several callers at once when concurrent is given", results: ["merchantId", "merchantName", "calls"]),
                ActionSignature(name: "codeChallenge", required: [], optional: [], summary: "the SDK's code-challenge helper for Partial OAuth apps", results: ["codeVerifier", "codeChallenge", "codeChallengeMethod"]),
                ActionSignature(name: "environment", required: ["name"], optional: ["baseURL"], summary: "resolves an environment (sandbox, production, or custom with a base URL) to its hosts", results: ["webHost", "apiHost"]),
                ActionSignature(name: "relaunch", required: [], optional: [], summary: "a relaunch: a new SDK instance over the same token store"),
            ]
        case .clever:
            return [
                ActionSignature(name: "startLogin", required: ["clientId", "redirectURI"], optional: [], summary: "steps 2 and 3: a fresh state, then the authorize URL in the browser", results: []),
                ActionSignature(name: "receiveRedirect", required: ["url"], optional: [], summary: "step 4: the custom redirect URL the app was opened with", results: ["tokenType"]),
                ActionSignature(name: "relaunch", required: [], optional: [], summary: "a relaunch: a new SDK instance over the same token store"),
            ]
        case .braintree:
            return [
                ActionSignature(name: "connect", required: ["returnURL"], optional: [], summary: "the Connect with Braintree button: the connect URL from the merchant's server, opened in the in-app browser", results: []),
                ActionSignature(name: "openURL", required: ["url", "returnURL"], optional: [], summary: "the AppDelegate's open-URL handler with its trusted-source check", results: ["handled"]),
                ActionSignature(name: "status", required: [], optional: [], summary: "reads the notifications posted so far", results: ["connected", "failed", "lastMerchant", "lastError"]),
            ]
        }
    }

    /// What the scripted browser can do, and its arguments.
    public static let browserOperations: [ActionSignature] = [
        ActionSignature(name: "login", required: ["email", "password"], optional: [], summary: "the user loads the page the SDK opened and logs in"),
        ActionSignature(name: "deny", required: [], optional: [], summary: "the user loads the page the SDK opened and declines"),
        ActionSignature(name: "open", required: ["url"], optional: [], summary: "the user's browser opens a URL the app built itself"),
        ActionSignature(name: "tamper", required: [], optional: ["state", "code", "client_id", "merchant_id", "error", "remove"], summary: "an attacker rewrites the captured redirect: sets the given parameters, removes those listed in remove"),
    ]

    /// Variables every spec may use without capturing them: the fake's base URL and the
    /// redirect the browser last captured.
    public static let builtinVariables = ["baseURL", "redirect"]

    /// Server-side operations a provider's fake offers to specs.
    public static func serverOperations(for provider: Provider) -> [String] {
        switch provider {
        case .moltin, .clover, .clever, .braintree: return ["revokeTokens"]
        }
    }

    /// Error kinds an SDK call can end in, as drivers report them. The RFC each comes from is in
    /// the README's spec-format section.
    public static let errorKinds = [
        "transport", "serverError", "invalidResponse", "tokenEndpoint", "tokenRejected", "httpStatus",
        "notLoggedIn", "storage", "configuration", "authorization", "stateMismatch",
    ]

    /// Faults the fake server can be told to produce.
    public static let faultKinds = [
        "unreachable", "serverError", "nonJSONBody", "tokenNotValid",
        "connectionReset", "stall", "htmlServerError", "truncatedJSON", "redirectLoop",
    ]
}
