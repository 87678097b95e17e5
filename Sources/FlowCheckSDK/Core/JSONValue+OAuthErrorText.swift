extension JSONValue {
    /// The text of an OAuth error body, made safe to show: `error: error_description`
    /// (RFC 6749 §5.2), or `error` alone, or any other provider-style message (`errorMessage`);
    /// sanitised and scrubbed of `secrets` (see `Redaction.serverMessage`).
    ///
    /// The same reading as `CloverWire.oauthErrorText`, shared so providers added later (Clever)
    /// report token-endpoint refusals in one shape.
    /// - Parameter secrets: Values the client sent that a server might echo back.
    /// - Returns: The text, or nil when the body names no error.
    func oauthErrorText(secrets: [String]) -> String? {
        let code = self["error"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 }
        let detail = self["error_description"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 }
        let text: String?
        switch (code, detail) {
        case let (code?, detail?): text = "\(code): \(detail)"
        case let (code?, nil): text = code
        default: text = errorMessage
        }
        return text.map { Redaction.serverMessage($0, secrets: secrets) }
    }
}
