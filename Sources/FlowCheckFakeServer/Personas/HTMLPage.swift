import Foundation

/// The HTML skeleton every fake's pages share: kept deliberately plain and well formed (every
/// attribute double-quoted, no boolean attributes, no scripts) because the runner's scripted
/// browser reads forms with a simple parser.
enum HTMLPage {
    static let contentType = "text/html; charset=utf-8"

    /// The courtesy body of a redirect, for clients that do not follow `Location` themselves.
    static func redirect(to location: String) -> String {
        document(title: "Redirecting", body: "<p><a href=\"\(escape(location))\">Continue</a></p>\n")
    }

    /// `status` with an HTML body.
    static func response(_ status: Int, _ html: String) -> HTTPResponse {
        HTTPResponse(
            status: status,
            headers: [("Content-Type", contentType), ("Cache-Control", "no-store")],
            body: Data(html.utf8)
        )
    }

    /// Escapes what matters in text and double-quoted attributes. The apostrophe is left
    /// alone (no attribute here is single-quoted) so messages such as "the app's site URL"
    /// appear in the page exactly as written.
    static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.count)
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            default: out.append(character)
            }
        }
        return out
    }

    /// A whole HTML document around `body`.
    static func document(title: String, body: String) -> String {
        """
        <!DOCTYPE html>
        <html lang="en">
        <head><meta charset="utf-8"><title>\(escape(title))</title></head>
        <body>
        \(body)</body>
        </html>

        """
    }
}
