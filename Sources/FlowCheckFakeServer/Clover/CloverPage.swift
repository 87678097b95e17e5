import Foundation

/// The HTML the fake Clover web host serves: the login page and plain error pages.
///
/// Kept deliberately plain and well formed (every attribute double-quoted, no boolean
/// attributes, no scripts) because a scripted browser in the runner reads the form's
/// `action`/`method` and the `name`/`value` of its inputs and buttons with a simple parser.
enum CloverPage {
    static let contentType = "text/html; charset=utf-8"

    /// The login page for pending request `requestID`, optionally with an error line above
    /// the form. The form is identical on every showing so a retry posts the same fields.
    static func login(requestID: String, appID: String, error: String? = nil) -> String {
        var body = "<h1>Log in to Clover</h1>\n"
        body += "<p>The app <strong>\(escape(appID))</strong> asks for access to your merchant.</p>\n"
        if let error {
            body += "<p class=\"error\">\(escape(error))</p>\n"
        }
        body += """
        <form method="post" action="\(FakeClover.loginPath)">
        <input type="hidden" name="request_id" value="\(escape(requestID))">
        <p><label>Email <input type="email" name="email"></label></p>
        <p><label>Password <input type="password" name="password"></label></p>
        <p><button type="submit" name="action" value="login">Log in</button>
        <button type="submit" name="action" value="deny">Deny</button></p>
        </form>

        """
        return document(title: "Clover - Log in", body: body)
    }

    /// An error page with one message; `message` is the text tests and reports look for.
    static func error(_ message: String) -> String {
        document(title: "Clover - Error", body: "<h1>Error</h1>\n<p class=\"error\">\(escape(message))</p>\n")
    }

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

    /// A whole HTML document around `body`. Internal rather than private because the other
    /// fakes' pages (``ProviderPage``) share this skeleton.
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
