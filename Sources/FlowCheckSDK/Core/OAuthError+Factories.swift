// Internal shorthands so call sites read as the error they raise.
extension OAuthError {
    static func transport(_ message: String) -> OAuthError {
        OAuthError(code: .transport, message: message)
    }

    static func serverError(_ message: String, status: Int) -> OAuthError {
        OAuthError(code: .serverError, message: message, status: status)
    }

    static func invalidResponse(_ message: String, status: Int? = nil) -> OAuthError {
        OAuthError(code: .invalidResponse, message: message, status: status)
    }

    static func tokenEndpoint(_ message: String, status: Int) -> OAuthError {
        OAuthError(code: .tokenEndpoint, message: message, status: status)
    }

    static func tokenRejected(_ message: String, status: Int) -> OAuthError {
        OAuthError(code: .tokenRejected, message: message, status: status)
    }

    static func httpStatus(_ message: String, status: Int) -> OAuthError {
        OAuthError(code: .httpStatus, message: message, status: status)
    }

    static func notLoggedIn(_ message: String) -> OAuthError {
        OAuthError(code: .notLoggedIn, message: message)
    }

    static func storage(_ message: String) -> OAuthError {
        OAuthError(code: .storage, message: message)
    }

    static func configuration(_ message: String) -> OAuthError {
        OAuthError(code: .configuration, message: message)
    }

    /// A 3xx where the SDK expected an answer. Transports do not follow redirects (a custom-scheme
    /// redirect is an OAuth result, not a place to go), and the SDK never follows one either: a
    /// token or API request re-sent to wherever `Location` points would carry its credentials
    /// there, and a redirect loop would never end. Nor is the `Location` quoted: it may hold a
    /// code.
    static func unexpectedRedirect(status: Int) -> OAuthError {
        OAuthError(code: .invalidResponse, message: "unexpected redirect", status: status)
    }
}

// Shorthands for the browser-based providers (Clover).
extension OAuthError {
    static func authorization(_ message: String) -> OAuthError {
        OAuthError(code: .authorization, message: message)
    }

    static func stateMismatch(_ message: String) -> OAuthError {
        OAuthError(code: .stateMismatch, message: message)
    }
}
