/// The harness's percent-encoding, for the runner as well as the fakes: one implementation on
/// the judging side (the SDK keeps its own twin, see docs/architecture.md, "Deliberate twins").
///
/// A thin public face on the internal `FormURLEncoding`, which keeps its name internal so it
/// cannot clash with the SDK's type of the same name in a file importing both.
public enum HarnessPercentEncoding {
    /// Every byte but RFC 3986's unreserved characters as `%XX`: the same value whether the
    /// reader applies the form rules (`+` is a space) or not.
    public static func encodeComponent(_ text: String) -> String {
        FormURLEncoding.encodeComponent(text)
    }

    /// One `application/x-www-form-urlencoded` component decoded strictly (`+` is a space, %XX
    /// is UTF-8), or nil if an escape is malformed or the result is not UTF-8.
    public static func decodeFormComponent(_ text: Substring) -> String? {
        FormURLEncoding.decodeFormComponent(text)
    }
}
