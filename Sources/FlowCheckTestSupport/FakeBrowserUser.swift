import Foundation
import FlowCheckSDK

/// Plays the person at the browser on a fake provider's login or consent page: loads the page
/// the SDK opened, submits the form (log in with an email and password, or deny), follows
/// redirects that stay on the fake's own origin (a merchant backend's callback, say), and
/// returns the first redirect that leaves it: the app's redirect URI, as the app receives it.
///
/// It goes through the transport it is given, so it reaches the fake socket-free or over
/// loopback exactly as the SDK does. It reads only the form every fake renders: `action`, the
/// hidden `request_id`, and the `action` buttons `login` and `deny`.
///
/// ```swift
/// let user = FakeBrowserUser(transport: connection.transport)
/// _ = try await sdk.setup(configuration: configuration)             // .loginStarted
/// let redirect = try await user.complete(try #require(browser.openedURLs.last),
///                                        .logIn(email: "e@example.com", password: "pw"))
/// try await sdk.receivedOAuthCodeOrToken(redirect)
/// ```
public struct FakeBrowserUser: Sendable {
    /// What the person does on the page.
    public enum Choice: Sendable {
        /// Types `email` and `password` and presses the login (approve) button.
        case logIn(email: String, password: String)
        /// Presses the deny (decline) button.
        case deny
    }

    /// Why the person could not get back to the app; the description quotes the page.
    public struct Stopped: Error, CustomStringConvertible, Sendable {
        /// The status of the last page loaded (0 when none could be).
        public let status: Int
        /// What went wrong, with the page's text.
        public let description: String

        /// Creates the error for a page with `status` and what went wrong.
        public init(status: Int, description: String) {
            self.status = status
            self.description = description
        }
    }

    /// Redirects followed within the fake's origin before giving up.
    public static let maximumHops = 5

    private let transport: any HTTPTransport

    /// Creates a user whose browser loads pages through `transport`.
    public init(transport: any HTTPTransport) {
        self.transport = transport
    }

    /// Loads `url`, submits its form with `choice`, and returns the redirect that leaves the fake.
    /// - Throws: ``Stopped`` when a page is an error page, has no form, or nothing redirects
    ///   out of the fake; the transport's error when a page cannot be loaded.
    public func complete(_ url: URL, _ choice: Choice) async throws -> URL {
        let page = try await load(TransportRequest(method: "GET", url: url, headers: [("Accept", "text/html")]))
        if case .left(let redirect) = page { return redirect }
        guard case .page(let pageURL, let status, let html) = page else {
            throw Stopped(status: 0, description: "no page")
        }
        guard status == 200, let form = Self.form(in: html) else {
            throw Stopped(status: status, description: "the page at \(pageURL.path) shows no login form (\(status)): \(Self.text(of: html))")
        }
        var fields = [("request_id", form.requestID)]
        switch choice {
        case .logIn(let email, let password):
            fields += [("email", email), ("password", password), ("action", "login")]
        case .deny:
            fields.append(("action", "deny"))
        }
        guard let target = URL(string: form.action, relativeTo: pageURL)?.absoluteURL else {
            throw Stopped(status: status, description: "the form's action \(form.action) is not a URL")
        }
        // The browser's own encoder, never the SDK's: see ``BrowserFormEncoding``.
        let body = Data(BrowserFormEncoding.encode(fields).utf8)
        let post = TransportRequest(method: "POST", url: target, headers: [("Content-Type", "application/x-www-form-urlencoded")], body: body)
        switch try await load(post) {
        case .left(let redirect):
            return redirect
        case .page(let url, let status, let html):
            throw Stopped(status: status, description: "the form post to \(url.path) did not redirect to the app (\(status)): \(Self.text(of: html))")
        }
    }

    private enum Loaded {
        case page(URL, Int, String)
        case left(URL)
    }

    private func load(_ first: TransportRequest) async throws -> Loaded {
        var request = first
        for _ in 0...Self.maximumHops {
            let response = try await transport.send(request)
            let html = String(decoding: response.body, as: UTF8.self)
            guard (300...399).contains(response.status), let location = response.header("Location"),
                  let target = URL(string: location, relativeTo: request.url)?.absoluteURL
            else { return .page(request.url, response.status, html) }
            guard target.scheme == request.url.scheme, target.host == request.url.host, target.port == request.url.port else {
                return .left(target)
            }
            request = TransportRequest(method: "GET", url: target, headers: [("Accept", "text/html")])
        }
        throw Stopped(status: 0, description: "more than \(Self.maximumHops) redirects within the fake")
    }

    private struct Form {
        var action: String
        var requestID: String
    }

    private static func form(in html: String) -> Form? {
        guard let action = firstMatch(#"<form[^>]*\baction="([^"]*)""#, in: html),
              let requestID = firstMatch(#"<input[^>]*\bname="request_id"[^>]*\bvalue="([^"]*)""#, in: html)
        else { return nil }
        return Form(action: decodeEntities(action), requestID: decodeEntities(requestID))
    }

    private static func firstMatch(_ pattern: String, in text: String) -> String? {
        guard let regex = try? NSRegularExpression(pattern: pattern, options: .caseInsensitive),
              let match = regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)),
              let range = Range(match.range(at: 1), in: text)
        else { return nil }
        return String(text[range])
    }

    private static func decodeEntities(_ text: String) -> String {
        text.replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&#39;", with: "'")
            .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&amp;", with: "&")
    }

    /// The page's visible text, tags removed, for an error message.
    private static func text(of html: String) -> String {
        let stripped = html.replacingOccurrences(of: "<[^>]*>", with: " ", options: .regularExpression)
        return decodeEntities(stripped.split(whereSeparator: \.isWhitespace).joined(separator: " "))
    }
}
