/// The words a spec may use: app actions per provider, error kinds, faults, server operations.
///
/// The loader checks every spec against these lists, so a typo is caught before anything runs,
/// and the lists are what "did you mean" suggests from.
public enum Vocabulary {
    /// An app action: what the driver must do, and its arguments.
    public struct ActionSignature: Sendable {
        public var name: String
        public var required: [String]
        public var optional: [String]
        /// What the call stands for, as reports say it after the call ("the tutorial's Products").
        public var summary: String
    }

    /// The app actions a provider's driver understands.
    public static func actions(for provider: Provider) -> [ActionSignature] {
        switch provider {
        case .moltin:
            return [
                ActionSignature(name: "auth", required: ["clientId", "clientSecret"], optional: [], summary: "the tutorial's Auth / Bad Auth: client credentials for a token"),
                ActionSignature(name: "refreshToken", required: [], optional: [], summary: "the tutorial's Refresh Token exercise"),
                ActionSignature(name: "deleteToken", required: [], optional: [], summary: "the tutorial's Delete Token"),
                ActionSignature(name: "products", required: [], optional: [], summary: "the tutorial's Products"),
                ActionSignature(name: "relaunch", required: [], optional: [], summary: "a relaunch: a new SDK instance over the same token store"),
            ]
        }
    }

    /// Server-side operations a provider's fake offers to specs.
    public static func serverOperations(for provider: Provider) -> [String] {
        switch provider {
        case .moltin: return ["revokeTokens"]
        }
    }

    /// Error kinds an SDK call can end in, as drivers report them. The RFC each comes from is in
    /// the README's spec-format section.
    public static let errorKinds = [
        "transport", "serverError", "invalidResponse", "tokenEndpoint", "tokenRejected", "httpStatus",
        "notLoggedIn", "storage", "configuration", "authorization", "stateMismatch",
    ]

    /// Faults the fake server can be told to produce.
    public static let faultKinds = ["unreachable", "serverError", "nonJSONBody", "tokenNotValid"]
}
