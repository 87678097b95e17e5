/// Cuts a long value for display, saying how much was left out: a 100,000-character page must
/// not flood a console line, an annotation or the committed report.
enum ValueCut {
    /// The console and CI annotations: one failed check per line, readable.
    static let line = 500
    /// The Markdown report: room for a whole error body.
    static let report = 2_000

    /// `text` when it has at most `limit` characters; else its first `limit` and a marker.
    static func cut(_ text: String, limit: Int) -> String {
        guard text.count > limit else { return text }
        return String(text.prefix(limit)) + "… (\(text.count - limit) more characters)"
    }
}
