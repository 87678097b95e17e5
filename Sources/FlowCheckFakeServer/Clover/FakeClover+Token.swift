import Foundation

/// The API host's OAuth endpoints: code exchange (with PKCE verification) and refresh.
extension FakeClover {
    /// 401 for an unknown `client_id`. RFC 9110 §15.5.2: every 401 carries a challenge; a PKCE
    /// client sends its id in the body and no HTTP credentials, so the challenge is
    /// ``Persona/formChallenge(realm:)``, not a Basic one Clover would not accept (and which
    /// makes FoundationNetworking's URLSession drop the 401's body, or wait, on Linux).
    static let invalidClient = TokenEndpointError(
        status: 401, code: "invalid_client", description: "unknown client_id", rule: .tokenInvalidClient,
        challenge: Persona.formChallenge(realm: "clover")
    )

    // MARK: - POST /oauth/v2/token

    /// Exchanges a code for a token pair after verifying PKCE (RFC 7636 §4.6).
    ///
    /// DECISION: a code presented again after it was spent is refused with `invalid_grant`,
    /// but the tokens it already bought stay valid (RFC 6749 §4.1.2 only says SHOULD revoke);
    /// flows that replay a code (CLV-PART-3) therefore check that the good token is kept.
    /// A code that fails PKCE verification is spent too, so a verifier cannot be guessed
    /// twice. A code presented by another client is refused without being spent: that
    /// client could not have used it, and its owner still can.
    /// The token request carries no `redirect_uri` in Clover's JSON shape, so the code's
    /// `redirect_uri` binding is only checked when a client sends one anyway.
    func exchangeCode(_ request: HTTPRequest, now: Date) -> HTTPResponse {
        let result = Result<HTTPResponse, TokenEndpointError> { () throws(TokenEndpointError) -> HTTPResponse in
            let fields = try Self.jsonFields(request, required: ["client_id", "code", "code_verifier"])
            let clientID = fields["client_id"] ?? ""
            let code = fields["code"] ?? ""
            let verifier = fields["code_verifier"] ?? ""
            guard fixture.apps.contains(where: { $0.id == clientID }) else { throw Self.invalidClient }
            let redirectURI = try Self.optionalString(request, "redirect_uri")
            return try book.withLock { (book: inout Book) throws(TokenEndpointError) -> HTTPResponse in
                guard let issued = book.codes[code], issued.clientID == clientID else {
                    throw .invalidGrant("the code is unknown or was issued to another client", .tokenCodeUnknown)
                }
                guard !issued.used else {
                    throw .invalidGrant("the code was already used", .tokenCodeUsed)
                }
                book.codes[code]?.used = true
                guard now < issued.expiresAt else {
                    throw .invalidGrant("the code has expired", .tokenCodeExpired)
                }
                if let redirectURI, redirectURI != issued.redirectURI {
                    throw .invalidGrant("redirect_uri does not match the one the code was issued for", .tokenRedirectMismatch)
                }
                guard Self.isWellFormedVerifier(verifier), FakeCrypto.s256Challenge(for: verifier) == issued.challenge else {
                    throw .invalidGrant("code_verifier does not match the code_challenge", .cloverTokenPKCEMismatch)
                }
                return issuePair(into: &book, clientID: clientID, merchantID: issued.merchantID, now: now)
            }
        }
        switch result {
        case .success(let response): return response
        case .failure(let error): return error.response
        }
    }

    // MARK: - POST /oauth/v2/refresh

    /// Rotates a refresh token: the presented one is dead from then on, a new pair is issued.
    ///
    /// DECISION: the access token issued alongside the spent refresh token stays valid until
    /// its own expiry (rotation kills refresh tokens, not access tokens). A refresh token
    /// presented by another client is refused without being spent.
    func refresh(_ request: HTTPRequest, now: Date) -> HTTPResponse {
        let result = Result<HTTPResponse, TokenEndpointError> { () throws(TokenEndpointError) -> HTTPResponse in
            let fields = try Self.jsonFields(request, required: ["client_id", "refresh_token"])
            let clientID = fields["client_id"] ?? ""
            let refreshToken = fields["refresh_token"] ?? ""
            guard fixture.apps.contains(where: { $0.id == clientID }) else { throw Self.invalidClient }
            return try book.withLock { (book: inout Book) throws(TokenEndpointError) -> HTTPResponse in
                guard let token = book.refreshTokens[refreshToken], token.clientID == clientID else {
                    throw .invalidGrant("the refresh token is unknown or was issued to another client", .cloverRefreshUnknown)
                }
                guard !token.used else { throw .invalidGrant("the refresh token was already used", .cloverRefreshUsed) }
                guard !token.revoked else { throw .invalidGrant("the refresh token was revoked", .cloverRefreshRevoked) }
                guard now.timeIntervalSince1970 < Double(token.expiration) else {
                    throw .invalidGrant("the refresh token has expired", .cloverRefreshExpired)
                }
                book.refreshTokens[refreshToken]?.used = true
                return issuePair(into: &book, clientID: clientID, merchantID: token.merchantID, now: now)
            }
        }
        switch result {
        case .success(let response): return response
        case .failure(let error): return error.response
        }
    }

    // MARK: - Helpers

    /// Records and returns a fresh access/refresh pair for `merchantID`.
    private func issuePair(into book: inout Book, clientID: String, merchantID: String, now: Date) -> HTTPResponse {
        let seconds = now.timeIntervalSince1970
        let accessExpiration = Persona.wholeSeconds(seconds + fixture.accessTokenLifetime)
        let refreshExpiration = Persona.wholeSeconds(seconds + fixture.refreshTokenLifetime)
        let access = MintedSecret.mint(byteCount: 20)
        let refresh = MintedSecret.mint(byteCount: 20)
        book.accessTokens[access] = IssuedToken(
            clientID: clientID, merchantID: merchantID, expiration: accessExpiration, used: false, revoked: false
        )
        book.refreshTokens[refresh] = IssuedToken(
            clientID: clientID, merchantID: merchantID, expiration: refreshExpiration, used: false, revoked: false
        )
        book.issued.append(access)
        book.issued.append(refresh)
        return Persona.noStore(.json(200, [
            "access_token": access,
            "access_token_expiration": accessExpiration,
            "refresh_token": refresh,
            "refresh_token_expiration": refreshExpiration,
        ]))
    }

    /// The JSON object body's `required` string fields, after the checks every token
    /// request of every fake shares (``TokenRequestFields``: JSON only here, as Clover's API).
    ///
    /// FlowCheck policy: a `client_secret` field is refused whatever its value: a PKCE
    /// (low-trust) client is a mobile app that cannot keep a secret (seed 000, Partial OAuth
    /// step 2), so sending one is the bug this harness exists to catch. Clover's documentation
    /// does not say it refuses one.
    private static func jsonFields(_ request: HTTPRequest, required: [String]) throws(TokenEndpointError) -> [String: String] {
        let body = try TokenRequestFields(request, accepting: [.json])
        var fields: [String: String] = [:]
        for name in required {
            // DECISION (unchanged): an empty code or verifier is judged, and refused, as a grant.
            fields[name] = try body.present(name)
        }
        if body.contains("client_secret") {
            throw .invalidRequest(
                "FlowCheck policy: client_secret must not be sent by a PKCE (low-trust) client", .cloverTokenClientSecret
            )
        }
        return fields
    }

    /// An optional string field of the JSON body (already checked to be one by
    /// ``jsonFields(_:required:)``).
    private static func optionalString(_ request: HTTPRequest, _ name: String) throws(TokenEndpointError) -> String? {
        guard case .object(let object)? = request.jsonBody, let value = object[name] else { return nil }
        guard case .string(let text) = value else {
            throw .invalidRequest("\(name) must be a string", .tokenParameterNotString)
        }
        return text
    }

    /// RFC 7636 §4.1: 43 to 128 characters of `[A-Z] / [a-z] / [0-9] / "-" / "." / "_" / "~"`.
    static func isWellFormedVerifier(_ verifier: String) -> Bool {
        let bytes = verifier.utf8
        guard (43...128).contains(bytes.count) else { return false }
        return bytes.allSatisfy { byte in
            isBase64URL(byte) || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "~")
        }
    }

}
