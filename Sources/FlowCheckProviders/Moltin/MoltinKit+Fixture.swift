import Foundation
import FlowCheckFakeServer
import FlowCheckSpec

/// How a spec writes a ``MoltinFixture``: registered clients, an optional catalogue (the fake's
/// two products when left out) and the token lifetime (the tutorial's hour when left out).
extension MoltinKit {
    static let fixtureKeys = ["clients", "products", "tokenLifetime"]
    static let clientKeys = ["id", "secret"]
    static let productKeys = ["id", "title", "price"]
    static let tokenLifetimes = 1...31_536_000

    public func decode(_ node: JSONNode, at path: String, reader: SpecReader) -> MoltinFixture? {
        guard let members = reader.object(node, path, allowed: Self.fixtureKeys) else { return nil }
        var clients: [MoltinFixture.Client] = []
        for (item, itemPath) in reader.elements(members, "clients", in: node, path, example: "[{\"id\": \"store-1\", \"secret\": \"...\"}]") {
            guard let fields = reader.object(item, itemPath, allowed: Self.clientKeys) else { continue }
            if let id = reader.string(fields, "id", in: item, itemPath, required: true, example: "\"store-1\""),
               let secret = reader.string(fields, "secret", in: item, itemPath, required: true, example: "\"s3cr3t\"") {
                reader.secret(secret, fields["secret"]!.value, itemPath + ".secret")
                clients.append(.init(id: id, secret: secret))
            }
        }
        var products = MoltinFixture.defaultProducts
        if let member = members["products"], let items = reader.array(member, path + ".products", example: "[{\"id\": \"p1\", \"title\": \"Tee\", \"price\": 2000}]") {
            products = []
            for (i, item) in items.enumerated() {
                let itemPath = path + ".products[\(i)]"
                guard let fields = reader.object(item, itemPath, allowed: Self.productKeys) else { continue }
                let id = reader.string(fields, "id", in: item, itemPath, required: true, example: "\"p1\"")
                let title = reader.string(fields, "title", in: item, itemPath, required: true, example: "\"Tee\"")
                if fields["price"] == nil { reader.missing("price", in: item, itemPath, example: "2000") }
                let price = reader.integer(fields["price"], itemPath + ".price", range: 0...100_000_000, example: "2000")
                if let id, let title, let price { products.append(.init(id: id, title: title, price: price)) }
            }
        }
        let lifetime = reader.integer(members["tokenLifetime"], path + ".tokenLifetime", range: Self.tokenLifetimes, example: "3600")
        return MoltinFixture(clients: clients, products: products, tokenLifetime: TimeInterval(lifetime ?? 3600))
    }

    public var fixtureSchema: SchemaNode {
        .closedObject([
            ("clients", .array(of: .closedObject([("id", .nonEmptyString), ("secret", .secret)], required: Self.clientKeys))),
            ("products", .array(of: .closedObject([("id", .nonEmptyString), ("title", .nonEmptyString), ("price", .integer(in: 0...100_000_000))], required: Self.productKeys))),
            ("tokenLifetime", .integer(in: Self.tokenLifetimes)),
        ], required: ["clients"])
    }
}
