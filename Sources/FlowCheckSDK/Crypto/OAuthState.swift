/// The OAuth `state` parameter: an unguessable value bound to one authorization request, so a
/// redirect that the client did not ask for is refused (RFC 6749 §10.12, CSRF).
public enum OAuthState {
    /// A fresh state: 32 random bytes, base64url-encoded to 43 characters.
    ///
    /// 256 bits, twice the 128 the harness requires (flows.md, CLE-LOGIN: "a fresh random state
    /// (at least 128 bits)"), and the same size as a PKCE verifier.
    /// - Parameter random: The byte source; the system CSPRNG unless a test pins it.
    /// - Returns: The state, URL-safe as it is.
    public static func generate(random: any RandomSource = SystemRandomSource()) -> String {
        let bytes = random.bytes(byteCount)
        precondition(bytes.count == byteCount, "RandomSource returned \(bytes.count) bytes, not \(byteCount)")
        return Base64URL.encode(bytes)
    }

    private static let byteCount = 32
}
