import Foundation

/// The login (or consent) page and error pages of a fake provider other than Clover, built on
/// ``HTMLPage``'s document skeleton so every fake serves the same form shape.
///
/// The form is exactly FakeClover's: `method="post"`, the provider's `action`, a hidden
/// `request_id`, `email` and `password` inputs, and two buttons `name="action"` with values
/// `login` and `deny`. The runner's scripted browser reads only those attributes, so only the
/// visible wording differs between providers.
struct ProviderPage: Sendable {
    /// Prefix of every page title, e.g. "Clever".
    var brand: String
    /// The login page's heading, e.g. "Log in with Clever".
    var heading: String
    /// The path the form posts to.
    var formAction: String
    /// Visible label of the `login` button ("Log in", "Approve").
    var loginLabel: String
    /// Visible label of the `deny` button ("Deny", "Decline").
    var denyLabel: String

    /// The login page for pending request `requestID`, optionally with an error line above
    /// the form. The form is identical on every showing so a retry posts the same fields.
    /// - Parameter intro: One plain-text sentence saying who asks for what.
    func login(requestID: String, intro: String, error: String? = nil) -> String {
        var body = "<h1>\(HTMLPage.escape(heading))</h1>\n"
        body += "<p>\(HTMLPage.escape(intro))</p>\n"
        if let error {
            body += "<p class=\"error\">\(HTMLPage.escape(error))</p>\n"
        }
        body += """
        <form method="post" action="\(HTMLPage.escape(formAction))">
        <input type="hidden" name="request_id" value="\(HTMLPage.escape(requestID))">
        <p><label>Email <input type="email" name="email"></label></p>
        <p><label>Password <input type="password" name="password"></label></p>
        <p><button type="submit" name="action" value="login">\(HTMLPage.escape(loginLabel))</button>
        <button type="submit" name="action" value="deny">\(HTMLPage.escape(denyLabel))</button></p>
        </form>

        """
        return HTMLPage.document(title: "\(brand) - \(heading)", body: body)
    }

    /// `status` with the login page as body.
    func loginResponse(_ status: Int, requestID: String, intro: String, error: String? = nil) -> HTTPResponse {
        HTMLPage.response(status, login(requestID: requestID, intro: intro, error: error))
    }

    /// `status` with an error page holding `message`, the text tests and reports look for.
    func errorResponse(_ status: Int, _ message: String) -> HTTPResponse {
        let body = "<h1>Error</h1>\n<p class=\"error\">\(HTMLPage.escape(message))</p>\n"
        return HTMLPage.response(status, HTMLPage.document(title: "\(brand) - Error", body: body))
    }
}
