import Foundation

/// The post of a fake's login page (``ProviderPage`` and ``CloverPage`` render the same form):
/// `request_id` naming the pending authorize request, `action` from the form's two buttons
/// (`login` or `deny`), and the `email` and `password` typed in.
///
/// Every fake answers it the same way up to the credentials check: an unknown or expired
/// request is refused and forgotten, `deny` consumes the request, anything but the two
/// buttons is refused. What a successful login issues is each provider's own.
///
/// ```swift
/// let post: LoginFormPost
/// switch LoginFormPost.parse(request) {
/// case .invalid(let message, let rule): return page(400, message).refused(by: rule)
/// case .post(let parsed): post = parsed
/// }
/// switch post.claim(&book.pendingLogins, createdAt: \.createdAt, lifetime: 600, now: now) {
/// case .refused(let message, let rule): ...       // 400
/// case .denied(let pending): ...        // redirect with error=access_denied
/// case .login(let requestID, let pending): ...  // check post.account(in:...), then issue
/// }
/// ```
struct LoginFormPost {
    /// The form post could be read, or the 400 message saying why not.
    enum Parsed {
        case post(LoginFormPost)
        case invalid(String, FlowCheckRule)
    }

    /// What the post asks of its pending request.
    enum Claim<Pending> {
        /// A 400 with this message: the request is unknown or expired, or the action is
        /// neither button.
        case refused(String, FlowCheckRule)
        /// The user declined; the request is consumed.
        case denied(Pending)
        /// The user pressed login; the request stays pending until the caller consumes it on
        /// success (wrong credentials show the form again for the same request).
        case login(requestID: String, Pending)
    }

    private let fields: [(name: String, value: String)]

    private func field(_ name: String) -> String? {
        fields.first { $0.name == name }?.value
    }

    /// Reads the form body. A browser always sends the form media type; a missing header is
    /// tolerated for hand-written clients, a different one is a client bug worth surfacing.
    static func parse(_ request: HTTPRequest) -> Parsed {
        if let mediaType = HTTPHeaders.mediaType(request.headers["Content-Type"]),
           mediaType != "application/x-www-form-urlencoded" {
            return .invalid("invalid_request: Content-Type must be application/x-www-form-urlencoded", .loginContentType)
        }
        guard let fields = request.formFields else { return .invalid("invalid_request: malformed form body", .loginMalformedBody) }
        return .post(LoginFormPost(fields: fields))
    }

    /// Finds the pending request this post names in `pending` and applies the action,
    /// removing the request when it has expired or was denied.
    /// - Parameters:
    ///   - createdAt: when a pending request was made; it lives `lifetime` seconds.
    func claim<Pending>(
        _ pending: inout RetainedTable<Pending>, createdAt: KeyPath<Pending, Date>, lifetime: TimeInterval, now: Date
    ) -> Claim<Pending> {
        guard let requestID = field("request_id"), let request = pending[requestID] else {
            return .refused(Self.unknownRequest, .loginUnknownRequest)
        }
        guard now < request[keyPath: createdAt] + lifetime else {
            pending[requestID] = nil
            return .refused(Self.unknownRequest, .loginUnknownRequest)
        }
        // The form's two buttons are the only actions; HTML implicit submission clicks the
        // first one, so a real browser always sends one of them.
        switch field("action") {
        case "deny":
            pending[requestID] = nil
            return .denied(request)
        case "login":
            return .login(requestID: requestID, request)
        default:
            return .refused("invalid_request: action must be login or deny", .loginBadAction)
        }
    }

    /// The account whose email (case-insensitively) is the one typed, if the password typed is
    /// its password; nil for an unknown email or a wrong password alike.
    func account<Account>(in accounts: [Account], email: KeyPath<Account, String>, password: KeyPath<Account, String>) -> Account? {
        let typed = (field("email") ?? "").lowercased()
        guard let account = accounts.first(where: { $0[keyPath: email].lowercased() == typed }),
              account[keyPath: password] == field("password")
        else { return nil }
        return account
    }

    private static let unknownRequest = "login request expired or unknown"
}
