import Foundation

/// The HTML the fake Clover web host serves: the login page and plain error pages.
///
/// Kept deliberately plain and well formed (every attribute double-quoted, no boolean
/// attributes, no scripts) because a scripted browser in the runner reads the form's
/// `action`/`method` and the `name`/`value` of its inputs and buttons with a simple parser.
enum CloverPage {

    /// The login page for pending request `requestID`, optionally with an error line above
    /// the form. The form is identical on every showing so a retry posts the same fields.
    static func login(requestID: String, appID: String, error: String? = nil) -> String {
        var body = "<h1>Log in to Clover</h1>\n"
        body += "<p>The app <strong>\(HTMLPage.escape(appID))</strong> asks for access to your merchant.</p>\n"
        if let error {
            body += "<p class=\"error\">\(HTMLPage.escape(error))</p>\n"
        }
        body += """
        <form method="post" action="\(FakeClover.loginPath)">
        <input type="hidden" name="request_id" value="\(HTMLPage.escape(requestID))">
        <p><label>Email <input type="email" name="email"></label></p>
        <p><label>Password <input type="password" name="password"></label></p>
        <p><button type="submit" name="action" value="login">Log in</button>
        <button type="submit" name="action" value="deny">Deny</button></p>
        </form>

        """
        return HTMLPage.document(title: "Clover - Log in", body: body)
    }

    /// An error page with one message; `message` is the text tests and reports look for.
    static func error(_ message: String) -> String {
        HTMLPage.document(title: "Clover - Error", body: "<h1>Error</h1>\n<p class=\"error\">\(HTMLPage.escape(message))</p>\n")
    }
}
