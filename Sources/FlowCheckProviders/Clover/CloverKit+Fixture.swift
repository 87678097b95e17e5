import Foundation
import FlowCheckFakeServer
import FlowCheckSpec

/// How a spec writes a ``CloverFixture``: apps with their site URLs, merchants with the apps
/// they installed, employees who log in, and optional lifetimes (the fake's defaults otherwise).
extension CloverKit {
    static let fixtureKeys = ["apps", "merchants", "employees", "accessTokenLifetime", "refreshTokenLifetime", "codeLifetime"]
    static let appKeys = ["id", "secret", "siteURL"]
    static let merchantKeys = ["id", "name", "installedApps"]
    static let employeeKeys = ["email", "password", "merchant"]
    static let accessTokenLifetimes = 1...31_536_000
    static let refreshTokenLifetimes = 1...315_360_000
    static let codeLifetimes = 1...86_400

    public func decode(_ node: JSONNode, at path: String, reader: SpecReader) -> CloverFixture? {
        guard let members = reader.object(node, path, allowed: Self.fixtureKeys) else { return nil }
        var apps: [CloverFixture.App] = []
        for (item, itemPath) in reader.elements(members, "apps", in: node, path, example: "[{\"id\": \"app-1\", \"secret\": \"...\", \"siteURL\": \"https://pos.example.com/\"}]") {
            guard let fields = reader.object(item, itemPath, allowed: Self.appKeys) else { continue }
            let id = reader.string(fields, "id", in: item, itemPath, required: true, example: "\"app-1\"")
            let secret = reader.string(fields, "secret", in: item, itemPath, required: true, example: "\"app-secret\"")
            let site = reader.string(fields, "siteURL", in: item, itemPath, required: true, example: "\"https://pos.example.com/\"")
            if let site, URL(string: site)?.host == nil {
                reader.report(fields["siteURL"]!.value, itemPath + ".siteURL", "siteURL \(reader.quoted(site)) is not an absolute URL", fix: "write it like \"https://pos.example.com/\"")
            }
            if let secret { reader.secret(secret, fields["secret"]!.value, itemPath + ".secret") }
            if let id, let secret, let site { apps.append(.init(id: id, secret: secret, siteURL: site)) }
        }
        var merchants: [CloverFixture.Merchant] = []
        for (item, itemPath) in reader.elements(members, "merchants", in: node, path, example: "[{\"id\": \"M1\", \"name\": \"Cafe\", \"installedApps\": [\"app-1\"]}]") {
            guard let fields = reader.object(item, itemPath, allowed: Self.merchantKeys) else { continue }
            let id = reader.string(fields, "id", in: item, itemPath, required: true, example: "\"M1\"")
            let name = reader.string(fields, "name", in: item, itemPath, required: true, example: "\"Cafe\"")
            var installed: [String] = []
            if let member = fields["installedApps"] {
                for (i, app) in (reader.array(member, itemPath + ".installedApps", example: "[\"app-1\"]") ?? []).enumerated() {
                    if case .string(let appID) = app.value { installed.append(appID) } else { reader.typeMismatch(app, itemPath + ".installedApps[\(i)]", expected: "a string", example: "\"app-1\"") }
                }
            } else {
                reader.missing("installedApps", in: item, itemPath, example: "[\"app-1\"]")
            }
            if let id, let name { merchants.append(.init(id: id, name: name, installedApps: installed)) }
        }
        var employees: [CloverFixture.Employee] = []
        for (item, itemPath) in reader.elements(members, "employees", in: node, path, example: "[{\"email\": \"ann@example.com\", \"password\": \"...\", \"merchant\": \"M1\"}]") {
            guard let fields = reader.object(item, itemPath, allowed: Self.employeeKeys) else { continue }
            let email = reader.string(fields, "email", in: item, itemPath, required: true, example: "\"ann@example.com\"")
            let password = reader.string(fields, "password", in: item, itemPath, required: true, example: "\"...\"")
            let merchant = reader.string(fields, "merchant", in: item, itemPath, required: true, example: "\"M1\"")
            if let merchant, !merchants.contains(where: { $0.id == merchant }) {
                reader.report(fields["merchant"]!.value, itemPath + ".merchant", "no merchant \(reader.quoted(merchant)) in the fixture", fix: merchants.isEmpty ? "add a merchant with the id \(reader.quoted(merchant)) to \"merchants\"" : Suggestion.fix(for: merchant, in: merchants.map(\.id), listName: "merchants"))
            }
            if let password { reader.secret(password, fields["password"]!.value, itemPath + ".password") }
            if let email, let password, let merchant { employees.append(.init(email: email, password: password, merchantID: merchant)) }
        }
        var fixture = CloverFixture(apps: apps, merchants: merchants, employees: employees)
        if let seconds = reader.integer(members["accessTokenLifetime"], path + ".accessTokenLifetime", range: Self.accessTokenLifetimes, example: "1800") { fixture.accessTokenLifetime = TimeInterval(seconds) }
        if let seconds = reader.integer(members["refreshTokenLifetime"], path + ".refreshTokenLifetime", range: Self.refreshTokenLifetimes, example: "2592000") { fixture.refreshTokenLifetime = TimeInterval(seconds) }
        if let seconds = reader.integer(members["codeLifetime"], path + ".codeLifetime", range: Self.codeLifetimes, example: "300") { fixture.codeLifetime = TimeInterval(seconds) }
        return fixture
    }

    public var fixtureSchema: SchemaNode {
        .closedObject([
            ("apps", .array(of: .closedObject([("id", .nonEmptyString), ("secret", .secret), ("siteURL", .pattern("^[A-Za-z][A-Za-z0-9+.-]*://[^/?#]+", description: "An absolute URL with a host."))], required: Self.appKeys))),
            ("merchants", .array(of: .closedObject([("id", .nonEmptyString), ("name", .nonEmptyString), ("installedApps", .array(of: .anyString))], required: Self.merchantKeys))),
            ("employees", .array(of: .closedObject([("email", .nonEmptyString), ("password", .secret), ("merchant", .nonEmptyString)], required: Self.employeeKeys))),
            ("accessTokenLifetime", .integer(in: Self.accessTokenLifetimes)),
            ("refreshTokenLifetime", .integer(in: Self.refreshTokenLifetimes)),
            ("codeLifetime", .integer(in: Self.codeLifetimes)),
        ], required: ["apps", "merchants", "employees"])
    }
}
