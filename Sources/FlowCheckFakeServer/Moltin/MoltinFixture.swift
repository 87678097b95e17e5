import Foundation

/// The data a ``FakeMoltin`` starts from: who may authenticate, what the catalogue holds and
/// how long tokens live. Plain values so a spec file can describe it.
public struct MoltinFixture: Sendable, Equatable {
    /// An API client allowed to obtain tokens.
    public struct Client: Sendable, Equatable {
        public var id: String
        public var secret: String

        public init(id: String, secret: String) {
            self.id = id
            self.secret = secret
        }
    }

    /// A catalogue entry served by `GET /v1/products`.
    public struct Product: Sendable, Equatable {
        public var id: String
        public var title: String
        /// Price in the currency's minor unit (cents).
        public var price: Int
        public var currency: String

        public init(id: String, title: String, price: Int, currency: String = "USD") {
            self.id = id
            self.title = title
            self.price = price
            self.currency = currency
        }
    }

    public var clients: [Client]
    public var products: [Product]
    /// Seconds from issue until a token expires.
    public var tokenLifetime: TimeInterval

    /// Two products, so list handling is exercised with more than one element.
    public static let defaultProducts: [Product] = [
        Product(id: "prod-1", title: "Tee", price: 2000),
        Product(id: "prod-2", title: "Mug", price: 1200),
    ]

    public init(clients: [Client], products: [Product] = MoltinFixture.defaultProducts, tokenLifetime: TimeInterval = 3600) {
        self.clients = clients
        self.products = products
        self.tokenLifetime = tokenLifetime
    }
}
