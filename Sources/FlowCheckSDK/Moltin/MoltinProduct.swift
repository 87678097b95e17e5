/// One product from Moltin's `GET v1/products` list (seed 003, "Using a valid token").
///
/// Only the fields the harness checks; the API sends many more.
public struct MoltinProduct: Sendable, Equatable {
    /// The product identifier.
    public var id: String

    /// The product title.
    public var title: String

    /// Creates a product.
    /// - Parameters:
    ///   - id: The product identifier.
    ///   - title: The product title.
    public init(id: String, title: String) {
        self.id = id
        self.title = title
    }
}
