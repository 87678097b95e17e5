import Foundation

/// The token endpoint: exchanging a code with the iOS client id and a blank secret.
extension FakeClever {
    // MARK: - POST /oauth/tokens

    /// Exchanges a code for an access token.
    ///
    /// Checks, in order: the body (see ``TokenRequestFields``; a `client_secret` anywhere is
    /// `invalid_request`), then client authentication, then the parameters, then the code.
    /// Client authentication accepts exactly one `Authorization` field that
    /// ``BasicCredentials/init(authorization:)`` reads as a known client id with a blank
    /// secret, however the client spelled it (scheme case, spaces, raw or form-encoded id);
    /// anything else (a secret after the colon, no colon, another scheme, no header) is 401
    /// `invalid_client` (seed 004 step 4: "use the client ID for the iOS platform and a blank
    /// client secret").
    ///
    /// DECISIONS, as in FakeClover: a code presented by another client is refused without
    /// being spent; any other failure on a known code (replayed, expired, wrong
    /// `redirect_uri`) spends it, so a leaked code cannot be retried with a guessed redirect.
    func exchangeCode(_ request: HTTPRequest, now: Date) -> HTTPResponse {
        let result = Result<HTTPResponse, TokenEndpointError> { () throws(TokenEndpointError) -> HTTPResponse in
            let fields = try TokenRequestFields(request, accepting: [.form, .json])
            try TokenRequestFields.refuseSecretParameter(request, fields)
            guard let credentials = BasicCredentials(request), credentials.secret.isEmpty,
                  let client = fixture.clients.first(where: { $0.id == credentials.clientID })
            else { throw .invalidClient(realm: "clever") }
            let grantType = try fields.required("grant_type")
            guard grantType == "authorization_code" else {
                throw .unsupportedGrantType("grant_type must be authorization_code")
            }
            let code = try fields.required("code")
            let redirectURI = try fields.required("redirect_uri")
            return try book.withLock { (book: inout Book) throws(TokenEndpointError) -> HTTPResponse in
                guard let issued = book.codes[code], issued.clientID == client.id else {
                    throw .invalidGrant("the code is unknown or was issued to another client", .tokenCodeUnknown)
                }
                guard !issued.used else { throw .invalidGrant("the code was already used", .tokenCodeUsed) }
                book.codes[code]?.used = true
                guard now < issued.expiresAt else { throw .invalidGrant("the code has expired", .tokenCodeExpired) }
                guard redirectURI == issued.redirectURI else {
                    throw .invalidGrant("redirect_uri does not match the one the code was issued for", .tokenRedirectMismatch)
                }
                let token = MintedSecret.mint(byteCount: 20)
                book.tokens[token] = false
                book.issued.append(token)
                return Persona.noStore(.json(200, ["access_token": token, "token_type": "bearer"]))
            }
        }
        switch result {
        case .success(let response): return response
        case .failure(let error): return error.response
        }
    }
}
