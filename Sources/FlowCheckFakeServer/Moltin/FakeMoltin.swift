import Foundation

/// A strict fake of the Moltin v1 API as described by its OAuth tutorial: token endpoint plus
/// one protected resource, enough to drive every token path an SDK must handle.
///
/// Wire contract:
/// - `POST /oauth/access_token`, form-encoded (another Content-Type, none, or a repeated
///   parameter is 400, as on every fake; see ``TokenRequestFields``),
///   grants `client_credentials`, `implicit` (treated like client_credentials) and
///   `refresh_token`. Success is `{"access_token","token_type":"Bearer","expires",
///   "expires_in","identifier"}` where `identifier` is the grant used.
/// - `GET /v1/products` with `Authorization: Bearer <token>` (scheme matched
///   case-insensitively, RFC 6750); missing or malformed is 400, unknown, dead or expired
///   (`now >= expires`) is 401 with a `Bearer` challenge.
/// - Unknown paths are 404; a wrong method on a known path is 405 with `Allow`.
///
/// Refresh decision: the fake issues no separate refresh token. Following the tutorial
/// ("refresh_token should have the value of the previously expired token"), the refresh grant
/// takes an access token previously issued to the same client, expired or not, exactly once;
/// afterwards that token is dead both as access token and as refresh token. Tokens killed by
/// ``revokeAllTokens()`` are dead too, so they cannot be refreshed either: the client has to
/// authenticate again.
///
/// Expiry is judged against the `now` passed in (the flow's virtual clock), never `Date()`,
/// using the whole-second `expires` value the client was told.
public final class FakeMoltin: FakeProvider {
    public let name = "moltin"
    public let fixture: MoltinFixture

    private struct Token {
        var clientID: String
        /// Unix seconds, exactly as reported in the token response.
        var expires: Int
        var dead: Bool
    }

    private struct Book {
        var tokens = RetainedTable<Token>()
        var issued = RetainedList()
    }

    private let book = Locked(Book())

    public static let tokenPath = "/oauth/access_token"
    public static let productsPath = "/v1/products"

    /// The catalogue answer: the same bytes for every request, so built once.
    private let productsResponse: HTTPResponse

    public init(fixture: MoltinFixture) {
        self.fixture = fixture
        self.productsResponse = .json(200, .object([
            "status": .bool(true),
            "result": .array(fixture.products.map { product in
                .object([
                    "id": .string(product.id),
                    "title": .string(product.title),
                    "price": .object(["amount": .number(String(product.price)), "currency": .string(product.currency)]),
                ])
            }),
            "pagination": .object(["total": .number(String(fixture.products.count))]),
        ]))
    }

    public var issuedSecrets: [String] {
        book.withLock { $0.issued.items }
    }

    /// Kills every token issued so far, so a flow can exercise "Access token is not valid"
    /// recovery. Tokens issued afterwards work normally.
    public func revokeAllTokens() {
        book.withLock { book in
            book.tokens.updateAll { $0.dead = true }
        }
    }

    public func accessTokenExpiry(_ token: String) -> Date? {
        book.withLock { $0.tokens[token].map { Date(timeIntervalSince1970: TimeInterval($0.expires)) } }
    }

    /// Whether `token` would currently be accepted on `GET /v1/products`.
    public func isTokenValid(_ token: String, now: Date) -> Bool {
        book.withLock { book in
            guard let record = book.tokens[token] else { return false }
            return !record.dead && now.timeIntervalSince1970 < Double(record.expires)
        }
    }

    public func handle(_ request: HTTPRequest, now: Date) -> HTTPResponse {
        switch request.path {
        case Self.tokenPath:
            guard request.method == "POST" else { return Persona.noStore(Self.methodNotAllowed(allow: "POST")) }
            return issueToken(request, now: now)
        case Self.productsPath:
            guard request.method == "GET" else { return Self.methodNotAllowed(allow: "GET") }
            return listProducts(request, now: now)
        default:
            return Self.error(404, "Not found").refused(by: .notFound)
        }
    }

    // MARK: - Token endpoint

    /// Body checks are every fake's (``TokenRequestFields``, form only here): a missing or
    /// other Content-Type and a repeated parameter are 400. Every answer, success or error,
    /// carries `Cache-Control: no-store` and `Pragma: no-cache` (RFC 6749 §5.1); a 401 carries
    /// a `Form realm="moltin"` challenge (RFC 9110 §15.5.2: every 401 has one). Not `Basic`:
    /// Moltin takes the client's credentials in the form only, so a Basic challenge would
    /// advertise a scheme it does not accept (RFC 6749 §5.2 asks for one only when the client
    /// used the Authorization header), and FoundationNetworking's URLSession drops the body
    /// of a 401 that challenges Basic. Errors keep Moltin's own `{"status": false, "error"}` shape.
    private func issueToken(_ request: HTTPRequest, now: Date) -> HTTPResponse {
        do {
            return Persona.noStore(try issueToken(TokenRequestFields(request, accepting: [.form]), now: now))
        } catch {
            var response = Self.error(error.status, error.description)
            if let challenge = error.challenge { response.headers.set("WWW-Authenticate", challenge) }
            return Persona.noStore(response).refused(by: error.rule)
        }
    }

    private func issueToken(_ fields: TokenRequestFields, now: Date) throws(TokenEndpointError) -> HTTPResponse {
        let grant = try fields.required("grant_type")
        guard ["client_credentials", "implicit", "refresh_token"].contains(grant) else {
            throw .unsupportedGrantType("Unsupported grant_type")
        }
        guard let client = fixture.clients.first(where: { $0.id == fields.optional("client_id") }),
              client.secret == fields.optional("client_secret")
        else {
            throw TokenEndpointError(
                status: 401, code: "invalid_client", description: "Invalid client id or secret", rule: .tokenInvalidClient,
                challenge: Persona.formChallenge(realm: "moltin")
            )
        }
        let expires = Self.wholeSeconds(now.timeIntervalSince1970 + fixture.tokenLifetime)
        let issued: String? = book.withLock { book in
            if grant == "refresh_token" {
                guard let old = fields.optional("refresh_token"),
                      let record = book.tokens[old],
                      record.clientID == client.id, !record.dead
                else { return nil }
                book.tokens[old]?.dead = true
            }
            let token = Self.randomToken()
            book.tokens[token] = Token(clientID: client.id, expires: expires, dead: false)
            book.issued.append(token)
            return token
        }
        guard let token = issued else {
            throw TokenEndpointError(
                status: 401, code: "invalid_grant", description: "Refresh token is not valid", rule: .moltinRefreshInvalid,
                challenge: Persona.formChallenge(realm: "moltin")
            )
        }
        return .json(200, [
            "access_token": token,
            "token_type": "Bearer",
            "expires": expires,
            "expires_in": Self.wholeSeconds(fixture.tokenLifetime),
            "identifier": grant,
        ])
    }

    // MARK: - Products

    private func listProducts(_ request: HTTPRequest, now: Date) -> HTTPResponse {
        guard let token = Self.bearerToken(request.headers["Authorization"]) else {
            return Self.error(400, "Access token is required").refused(by: .moltinProductsTokenMissing)
        }
        guard isTokenValid(token, now: now) else {
            // RFC 6750 §3: a 401 for a bearer-protected resource names the scheme and the error.
            var response = Self.error(401, "Access token is not valid")
            response.headers.set("WWW-Authenticate", "Bearer realm=\"moltin\", error=\"invalid_token\"")
            return response.refused(by: .moltinProductsTokenInvalid)
        }
        return productsResponse
    }

    /// The token of `Bearer <token>`, or nil if absent, empty or of another form.
    static func bearerToken(_ header: String?) -> String? {
        guard let header = header.map(Self.trimmingWhitespaces), !header.isEmpty else { return nil }
        // ASCII (every header a client sends us in practice): the same split on bytes, without
        // Character segmentation, which was a tenth of serve's time for a products request.
        if header.utf8.allSatisfy({ $0 < 0x80 }) {
            let parts = Array(header.utf8).split(separator: 0x20)
            guard parts.count == 2, parts[0].count == 6, zip(parts[0], "bearer".utf8).allSatisfy({ $0 | 0x20 == $1 }) else { return nil }
            // ASCII whitespace is HT, LF, VT, FF, CR and space (space is split on above).
            guard !parts[1].contains(where: { (0x09...0x0D).contains($0) }) else { return nil }
            return String(decoding: parts[1], as: UTF8.self)
        }
        let parts = header.split(separator: " ", omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        let token = String(parts[1])
        // Visible ASCII (every token we issue) holds no whitespace; only other text needs the
        // Unicode property lookup, which is slow per character.
        guard token.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) || !token.contains(where: \.isWhitespace) else { return nil }
        return token
    }

    // MARK: - Helpers

    /// `trimmingCharacters(in: .whitespaces)` (general category Zs and tab) without the round
    /// trip through NSString, which cost more than the rest of a products request on Linux.
    static func trimmingWhitespaces(_ text: String) -> Substring {
        func isSpace(_ scalar: Unicode.Scalar) -> Bool {
            scalar == "\t" || scalar.properties.generalCategory == .spaceSeparator
        }
        // Visible ASCII at both ends (every well-formed header): nothing to trim, and no
        // Unicode property look-up, which is slow per character.
        if let head = text.utf8.first, let tail = text.utf8.last, (0x21...0x7E).contains(head), (0x21...0x7E).contains(tail) {
            return text[...]
        }
        let scalars = text.unicodeScalars
        guard let first = scalars.firstIndex(where: { !isSpace($0) }),
              let last = scalars.lastIndex(where: { !isSpace($0) })
        else { return "" }
        return Substring(scalars[first...last])
    }

    private static func error(_ status: Int, _ message: String) -> HTTPResponse {
        .json(status, ["status": false, "error": message])
    }

    private static func methodNotAllowed(allow: String) -> HTTPResponse {
        var response = error(405, "Method not allowed")
        response.headers.set("Allow", Persona.allowing(allow))
        return response.refused(by: .methodNotAllowed)
    }

    /// Whole seconds, rounded down and clamped, so odd fixture values cannot trap.
    private static func wholeSeconds(_ seconds: TimeInterval) -> Int {
        guard seconds.isFinite else { return seconds > 0 ? Int.max : Int.min }
        return Int(max(min(seconds.rounded(.down), 9e18), -9e18))
    }

    /// 20 random bytes from the system CSPRNG and their tag (``MintedSecret``), as hex.
    private static func randomToken() -> String {
        MintedSecret.mint(byteCount: 20)
    }
}
