/// Where the SDK gets its random bytes (PKCE verifiers, OAuth `state`).
///
/// Injected so tests can pin the values (model: AppAuth's `OIDAuthorizationRequest`, whose
/// designated initialiser takes `state` and `codeVerifier` and whose convenience one generates
/// them); production uses `SystemRandomSource`.
public protocol RandomSource: Sendable {
    /// Returns exactly `count` bytes.
    ///
    /// Implementations used outside tests must be cryptographically secure: the bytes become
    /// PKCE verifiers and `state` values, whose whole point is that nobody can guess them
    /// (RFC 7636 §7.1, RFC 6749 §10.10).
    /// - Parameter count: How many bytes; not negative.
    /// - Returns: An array of `count` bytes.
    func bytes(_ count: Int) -> [UInt8]
}
