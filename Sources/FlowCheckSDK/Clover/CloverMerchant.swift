/// The merchant the session belongs to, as `GET /v3/merchants/{mId}` describes it.
///
/// Only the fields the harness checks; the API sends many more.
public struct CloverMerchant: Sendable, Equatable {
    /// The merchant identifier.
    public var id: String

    /// The merchant's business name.
    public var name: String

    /// Creates a merchant.
    /// - Parameters:
    ///   - id: The merchant identifier.
    ///   - name: The business name.
    public init(id: String, name: String) {
        self.id = id
        self.name = name
    }
}
