import Foundation

/// The merchant API: the one protected resource the SDK fetches after login.
extension FakeClover {
    /// `GET /v3/merchants/{mId}`.
    ///
    /// Every failure is the same 401 `{"message":"401 Unauthorized"}` so a client cannot tell
    /// a missing merchant from a foreign token (DECISION: an unknown merchant with a valid
    /// token of another merchant is 401, not 404). The header carries an RFC 6750 §3
    /// challenge: `invalid_token` when a token was sent, a bare one when none was.
    func merchant(_ merchantID: String, _ request: HTTPRequest, now: Date) -> HTTPResponse {
        guard let token = FakeMoltin.bearerToken(request.headers["Authorization"]) else {
            return Self.unauthorized(challenge: "Bearer realm=\"clover\"").refused(by: .cloverMerchantTokenMissing)
        }
        let valid = book.withLock { book in
            guard let record = book.accessTokens[token] else { return false }
            return !record.revoked && record.merchantID == merchantID
                && now.timeIntervalSince1970 < Double(record.expiration)
        }
        guard valid, let merchant = fixture.merchants.first(where: { $0.id == merchantID }) else {
            return Self.unauthorized(challenge: "Bearer realm=\"clover\", error=\"invalid_token\"").refused(by: .cloverMerchantTokenInvalid)
        }
        return .json(200, ["id": merchant.id, "name": merchant.name])
    }

    private static func unauthorized(challenge: String) -> HTTPResponse {
        var response = HTTPResponse.json(401, ["message": "401 Unauthorized"])
        response.headers.set("WWW-Authenticate", challenge)
        return response
    }
}
