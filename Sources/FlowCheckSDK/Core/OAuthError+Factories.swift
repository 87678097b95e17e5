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
