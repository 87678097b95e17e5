import Foundation

/// The API host's OAuth endpoints: code exchange (with PKCE verification) and refresh.
extension FakeClover {
    /// A token-endpoint error, RFC 6749 §5.2.
    struct TokenError: Error {
        var status: Int
        var code: String
        var description: String

        static func invalidRequest(_ description: String) -> TokenError {
            TokenError(status: 400, code: "invalid_request", description: description)
        }

        static func invalidGrant(_ description: String) -> TokenError {
            TokenError(status: 400, code: "invalid_grant", description: description)
        }

        static let invalidClient = TokenError(status: 401, code: "invalid_client", description: "unknown client_id")

        var response: HTTPResponse {
            Persona.noStore(.json(status, ["error": code, "error_description": description]))
        }
    }

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
        let result = Result<HTTPResponse, TokenError> { () throws(TokenError) -> HTTPResponse in
            let fields = try Self.jsonFields(request, required: ["client_id", "code", "code_verifier"])
            let clientID = fields["client_id"] ?? ""
            let code = fields["code"] ?? ""
            let verifier = fields["code_verifier"] ?? ""
            guard fixture.apps.contains(where: { $0.id == clientID }) else { throw .invalidClient }
            let redirectURI = try Self.optionalString(request, "redirect_uri")
            return try book.withLock { (book: inout Book) throws(TokenError) -> HTTPResponse in
                guard let issued = book.codes[code], issued.clientID == clientID else {
                    throw .invalidGrant("the code is unknown or was issued to another client")
                }
                guard !issued.used else {
                    throw .invalidGrant("the code was already used")
                }
                book.codes[code]?.used = true
                guard now < issued.expiresAt else {
                    throw .invalidGrant("the code has expired")
                }
                if let redirectURI, redirectURI != issued.redirectURI {
                    throw .invalidGrant("redirect_uri does not match the one the code was issued for")
                }
                guard Self.isWellFormedVerifier(verifier), FakeCrypto.s256Challenge(for: verifier) == issued.challenge else {
                    throw .invalidGrant("code_verifier does not match the code_challenge")
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
        let result = Result<HTTPResponse, TokenError> { () throws(TokenError) -> HTTPResponse in
            let fields = try Self.jsonFields(request, required: ["client_id", "refresh_token"])
            let clientID = fields["client_id"] ?? ""
            let refreshToken = fields["refresh_token"] ?? ""
            guard fixture.apps.contains(where: { $0.id == clientID }) else { throw .invalidClient }
            return try book.withLock { (book: inout Book) throws(TokenError) -> HTTPResponse in
                guard let token = book.refreshTokens[refreshToken], token.clientID == clientID else {
                    throw .invalidGrant("the refresh token is unknown or was issued to another client")
                }
                guard !token.used else { throw .invalidGrant("the refresh token was already used") }
                guard !token.revoked else { throw .invalidGrant("the refresh token was revoked") }
                guard now.timeIntervalSince1970 < Double(token.expiration) else {
                    throw .invalidGrant("the refresh token has expired")
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
        let access = Persona.randomHex(byteCount: 20)
        let refresh = Persona.randomHex(byteCount: 20)
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
    /// request shares.
    ///
    /// DECISION: a `client_secret` field is refused whatever its value: a PKCE (low-trust)
    /// client is a mobile app that cannot keep a secret (seed 000, Partial OAuth step 2),
    /// so sending one is the bug this harness exists to catch.
    private static func jsonFields(_ request: HTTPRequest, required: [String]) throws(TokenError) -> [String: String] {
        guard HTTPHeaders.mediaType(request.headers["Content-Type"]) == "application/json" else {
            throw .invalidRequest("Content-Type must be application/json")
        }
        guard case .object(let object)? = request.jsonBody else {
            throw .invalidRequest("the body must be a JSON object")
        }
        var fields: [String: String] = [:]
        for name in required {
            guard case .string(let value)? = object[name] else {
                throw .invalidRequest("\(name) is required and must be a string")
            }
            fields[name] = value
        }
        if object["client_secret"] != nil {
            throw .invalidRequest("client_secret must not be sent by a PKCE (low-trust) client")
        }
        return fields
    }

    /// An optional string field of the JSON body; present but not a string is a bad request.
    private static func optionalString(_ request: HTTPRequest, _ name: String) throws(TokenError) -> String? {
        guard case .object(let object)? = request.jsonBody, let value = object[name] else { return nil }
        guard case .string(let text) = value else {
            throw .invalidRequest("\(name) must be a string")
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
