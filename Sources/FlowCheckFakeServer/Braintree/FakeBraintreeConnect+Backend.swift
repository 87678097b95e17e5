import Foundation

/// The merchant's own backend: it hands the app a connect URL, receives Braintree's
/// redirect, exchanges the code with its secret and sends the merchant back to the app.
extension FakeBraintreeConnect {
    // MARK: - GET /backend/connect-url

    /// A connect URL with a fresh state the backend remembers until the callback spends it.
    ///
    /// DECISION: states do not expire; a real backend would bound them, but the flows only
    /// need "unknown" and "used", and an expiry would be one more clock to explain.
    ///
    /// While the fixture's `backendConnectURLs` last, the backend hands out the next one as it
    /// is and remembers no state: the misconfigured backend an app must not trust blindly.
    func connectURL(_ request: HTTPRequest) -> HTTPResponse {
        let verbatim: String? = book.withLock { book in
            guard book.connectURLsHandedOut < fixture.backendConnectURLs.count else { return nil }
            defer { book.connectURLsHandedOut += 1 }
            return fixture.backendConnectURLs[book.connectURLsHandedOut]
        }
        if let verbatim {
            return Persona.noStore(.json(200, ["connectURL": verbatim]))
        }
        guard let origin = Self.origin(of: request) else {
            return HTTPResponse.json(400, ["error": "a Host header naming this server is required"]).refused(by: .braintreeBackendHostRequired)
        }
        let state = Persona.randomHex(byteCount: 16)
        book.withLock { $0.backendStates[state] = true }
        let url = OAuthRedirect.location(origin + Self.connectPath, appending: [
            ("client_id", fixture.clientID),
            ("redirect_uri", origin + Self.callbackPath),
            ("scope", Self.scope),
            ("state", state),
        ])
        return Persona.noStore(.json(200, ["connectURL": url]))
    }

    // MARK: - GET /backend/braintree/callback

    /// Spends the state, then finishes the connection server-side.
    ///
    /// The code is exchanged by building the very request a backend sends to Braintree
    /// (Basic client id and secret, form body) and handing it to the access-token endpoint
    /// in-process: it never crosses the device's connection, so the recording shows the
    /// device only ever what the merchant's browser saw. The merchant id sent to the app is
    /// the token response's, not the callback's `merchantId` (DECISION: a backend trusts what
    /// it learnt with its secret over a query parameter anyone can edit). An `error`, a
    /// missing code or a failed exchange sends `RETURN/failed?error=E` with the RFC 6749
    /// error code, so the app can close the browser either way.
    func callback(_ request: HTTPRequest, now: Date) -> HTTPResponse {
        let state = request.queryItem("state")
        let known: Bool = book.withLock { book in
            guard let state else { return false }
            return book.backendStates.remove(state) != nil
        }
        guard known else {
            return Self.page.errorResponse(400, "unknown state").refused(by: .braintreeCallbackUnknownState)
        }
        if let error = request.queryItem("error") {
            return Self.backToApp("failed", [("error", error.isEmpty ? "invalid_request" : error)], returnURL: fixture.returnURL)
        }
        guard let code = request.queryItem("code"), !code.isEmpty else {
            return Self.backToApp("failed", [("error", "invalid_request")], returnURL: fixture.returnURL)
        }
        let exchange = HTTPRequest(
            method: "POST", target: Self.accessTokensPath,
            headers: [
                ("Authorization", BasicCredentials.header(clientID: fixture.clientID, secret: fixture.clientSecret)),
                ("Content-Type", "application/x-www-form-urlencoded"),
            ],
            body: Data(("grant_type=authorization_code&code=" + FormURLEncoding.encodeFormComponent(code)).utf8)
        )
        let answer = accessTokens(exchange, now: now)
        let fields = answer.jsonFields() ?? [:]
        guard answer.status == 200, let token = fields["access_token"], let merchantID = fields["merchant_id"] else {
            return Self.backToApp("failed", [("error", fields["error"] ?? "server_error")], returnURL: fixture.returnURL)
        }
        book.withLock { $0.backendTokens[merchantID] = token }
        return Self.backToApp("connected", [("merchant_id", merchantID)], returnURL: fixture.returnURL)
    }

    /// 302 to `returnURL/segment?parameters`. Exactly one '/' joins the return URL and the
    /// segment, so `examplescheme://braintree` and `examplescheme://braintree/` agree, and the
    /// reverse-domain form `com.example.merchantapp:/braintree` keeps its single slash.
    static func backToApp(_ segment: String, _ parameters: [(String, String)], returnURL: String) -> HTTPResponse {
        var base = returnURL
        if base.hasSuffix("/") { base.removeLast() }
        return OAuthRedirect.response(to: OAuthRedirect.location(base + "/" + segment, appending: parameters))
    }

    // MARK: - The secret guard

    /// Whether `request` carries the backend's client secret, which a device must never hold.
    ///
    /// By name: a query parameter, form field or top-level JSON key `client_secret`, or a
    /// header whose name is `client_secret` or ends in `client-secret`/`client_secret`
    /// (case-insensitive). By value, when the fixture's secret is at least 8 characters
    /// (DECISION: a shorter one could occur by chance inside a random state or code and make
    /// the guard flaky): the secret, plain or form-encoded, anywhere in the raw target, a
    /// decoded query value, a header value, the `user:pass` of a Basic header, the raw body
    /// or a decoded form field.
    func carriesClientSecret(_ request: HTTPRequest) -> Bool {
        let name = "client_secret"
        if request.query.contains(where: { $0.name == name }) { return true }
        if request.formFields?.contains(where: { $0.name == name }) == true { return true }
        if case .object(let object)? = request.jsonBody, object[name] != nil { return true }
        for header in request.headers {
            let headerName = header.name.lowercased().replacingOccurrences(of: "-", with: "_")
            if headerName.hasSuffix(name) { return true }
        }
        let secret = fixture.clientSecret
        guard secret.count >= 8 else { return false }
        var haystacks = [request.target, String(decoding: request.body, as: UTF8.self)]
        haystacks += request.query.map(\.value)
        haystacks += request.formFields?.map(\.value) ?? []
        for header in request.headers {
            haystacks.append(header.value)
            if let userPass = BasicCredentials.decodedUserPass(header.value) { haystacks.append(userPass) }
        }
        // The form-encoded spelling too: that is how a secret sits in a Basic header or a body.
        let needles = [secret, FormURLEncoding.encodeFormComponent(secret)]
        return haystacks.contains { haystack in needles.contains { haystack.contains($0) } }
    }
}
