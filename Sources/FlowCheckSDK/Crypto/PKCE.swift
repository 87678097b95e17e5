/// A PKCE code verifier and its `S256` challenge (RFC 7636).
///
/// `S256` only: RFC 7636 §4.2 lets a client use `plain` only when it cannot do SHA-256, and this
/// SDK can, so `plain` (which gives no protection once the authorization request is seen) is
/// deliberately not offered. Clover's low-trust flow (seed 000, "Partial OAuth Flow": "use the
/// Low Trust Apps flow ... (PKCE)") sends `code_challenge_method=S256`.
///
/// Its `description` shows the challenge (public: it travels in the authorization URL) and hides
/// the verifier (a secret until the token request).
///
/// ```swift
/// let pkce = PKCE()                         // 32 random bytes, 43 characters
/// authorizeQuery.append(("code_challenge", pkce.challenge))
/// tokenBody["code_verifier"] = pkce.verifier
/// ```
public struct PKCE: Sendable, Equatable, CustomStringConvertible {
    /// The code verifier, sent only with the token request.
    public let verifier: String

    /// `BASE64URL(SHA256(ASCII(verifier)))`, sent with the authorization request.
    public let challenge: String

    /// The challenge method: always `"S256"`.
    public var method: String { "S256" }

    /// Wraps a verifier made elsewhere (e.g. by an app running its own login, seed 000 "Partial
    /// OAuth").
    /// - Parameter verifier: 43 to 128 characters of `[A-Za-z0-9-._~]` (RFC 7636 §4.1).
    /// - Throws: `OAuthError` `.configuration` when the verifier breaks that rule.
    public init(verifier: String) throws {
        guard Self.isValidVerifier(verifier) else {
            throw OAuthError.configuration("a PKCE code verifier must be 43 to 128 characters of [A-Za-z0-9-._~] (RFC 7636 §4.1)")
        }
        self.verifier = verifier
        self.challenge = Self.challenge(for: verifier)
    }

    /// Generates a fresh verifier: 32 random bytes, base64url-encoded to 43 characters, which is
    /// the 256 bits of entropy RFC 7636 §7.1 recommends.
    /// - Parameter random: The byte source; the system CSPRNG unless a test pins it.
    public init(random: any RandomSource = SystemRandomSource()) {
        let bytes = random.bytes(Self.verifierByteCount)
        // A source that returns fewer bytes would silently weaken every verifier: a broken
        // dependency, trapped like any other violated contract.
        precondition(bytes.count == Self.verifierByteCount, "RandomSource returned \(bytes.count) bytes, not \(Self.verifierByteCount)")
        let verifier = Base64URL.encode(bytes)
        self.verifier = verifier
        self.challenge = Self.challenge(for: verifier)
    }

    /// The `S256` transform of RFC 7636 §4.2: `BASE64URL-ENCODE(SHA256(ASCII(code_verifier)))`.
    /// - Parameter verifier: The code verifier (its UTF-8 bytes are hashed; a valid verifier is
    ///   ASCII, so that is its ASCII encoding).
    /// - Returns: The 43-character challenge.
    public static func challenge(for verifier: String) -> String {
        Base64URL.encode(SHA256.hash(verifier.utf8))
    }

    /// Whether `verifier` meets RFC 7636 §4.1: 43 to 128 unreserved characters.
    static func isValidVerifier(_ verifier: String) -> Bool {
        let bytes = verifier.utf8
        return (43...128).contains(bytes.count) && bytes.allSatisfy(isUnreserved)
    }

    /// Redacted: the challenge and method, never the verifier.
    public var description: String {
        "PKCE(method: \(method), challenge: \(challenge), verifier: \(Redaction.placeholder))"
    }

    private static let verifierByteCount = 32

    private static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }
}

extension PKCE: CustomDebugStringConvertible, CustomReflectable {
    /// Same as `description`: redacted.
    public var debugDescription: String { description }

    /// A mirror without the verifier, so `dump` and debuggers do not print it.
    public var customMirror: Mirror {
        Mirror(self, children: ["verifier": Redaction.placeholder, "challenge": challenge], displayStyle: .struct)
    }
}
