import Foundation

/// Braintree's token endpoint, the one call only a backend holding the secret can make.
extension FakeBraintreeConnect {
    // MARK: - POST /braintree/oauth/access_tokens

    /// Exchanges a code for an access and refresh token.
    ///
    /// Checks, in order: the body (``TokenRequestFields``: form or JSON, no `client_secret`
    /// parameter), client authentication (exactly one `Authorization` that
    /// ``BasicCredentials/init(authorization:)`` reads as the fixture's id and secret, else
    /// 401 `invalid_client`; a device, which must not have the secret, always ends here),
    /// `grant_type`, `code`, then the code itself with FakeClever's rules. `redirect_uri` is
    /// optional, as in Braintree's server SDKs, and when sent must be the one the code was
    /// issued for.
    func accessTokens(_ request: HTTPRequest, now: Date) -> HTTPResponse {
        let result = Result<HTTPResponse, TokenEndpointError> { () throws(TokenEndpointError) -> HTTPResponse in
            let fields = try TokenRequestFields(request, accepting: [.form, .json])
            try TokenRequestFields.refuseSecretParameter(request, fields)
            guard let credentials = BasicCredentials(request),
                  credentials == BasicCredentials(clientID: fixture.clientID, secret: fixture.clientSecret)
            else { throw .invalidClient(realm: "braintree") }
            let grantType = try fields.required("grant_type")
            guard grantType == "authorization_code" else {
                throw .unsupportedGrantType("grant_type must be authorization_code")
            }
            let code = try fields.required("code")
            let redirectURI = fields.optional("redirect_uri")
            return try book.withLock { (book: inout Book) throws(TokenEndpointError) -> HTTPResponse in
                guard let issued = book.codes[code] else {
                    throw .invalidGrant("the code is unknown", .tokenCodeUnknown)
                }
                guard !issued.used else { throw .invalidGrant("the code was already used", .tokenCodeUsed) }
                book.codes[code]?.used = true
                guard now < issued.expiresAt else { throw .invalidGrant("the code has expired", .tokenCodeExpired) }
                if let redirectURI, redirectURI != issued.redirectURI {
                    throw .invalidGrant("redirect_uri does not match the one the code was issued for", .tokenRedirectMismatch)
                }
                let access = MintedSecret.mint(byteCount: 20)
                let refresh = MintedSecret.mint(byteCount: 20)
                book.tokens[access] = false
                book.tokens[refresh] = false
                book.issued.append(access)
                book.issued.append(refresh)
                return Persona.noStore(.json(200, [
                    "access_token": access, "refresh_token": refresh, "merchant_id": issued.merchantID,
                ]))
            }
        }
        switch result {
        case .success(let response): return response
        case .failure(let error): return error.response
        }
    }
}
