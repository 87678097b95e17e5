import Foundation

extension SpecDecoder {
    func decodeFixture(_ node: JSONNode, _ path: String, provider: Provider) -> Fixture? {
        switch provider {
        case .moltin:
            guard let members = object(node, path, allowed: Self.moltinFixtureKeys) else { return nil }
            var clients: [MoltinFixtureSpec.Client] = []
            if let member = members["clients"] {
                for (i, item) in (array(member, path + ".clients", example: "[{\"id\": \"store-1\", \"secret\": \"...\"}]") ?? []).enumerated() {
                    let itemPath = path + ".clients[\(i)]"
                    guard let fields = object(item, itemPath, allowed: Self.clientKeys) else { continue }
                    if let id = string(fields, "id", in: item, itemPath, required: true, example: "\"store-1\""),
                       let secret = string(fields, "secret", in: item, itemPath, required: true, example: "\"s3cr3t\"") {
                        checkSecretLength(secret, fields["secret"]!.value, itemPath + ".secret")
                        clients.append(.init(id: id, secret: secret))
                    }
                }
            } else {
                missing("clients", in: node, path, example: "[{\"id\": \"store-1\", \"secret\": \"...\"}]")
            }
            var products: [MoltinFixtureSpec.Product]?
            if let member = members["products"], let items = array(member, path + ".products", example: "[{\"id\": \"p1\", \"title\": \"Tee\", \"price\": 2000}]") {
                products = []
                for (i, item) in items.enumerated() {
                    let itemPath = path + ".products[\(i)]"
                    guard let fields = object(item, itemPath, allowed: Self.productKeys) else { continue }
                    let id = string(fields, "id", in: item, itemPath, required: true, example: "\"p1\"")
                    let title = string(fields, "title", in: item, itemPath, required: true, example: "\"Tee\"")
                    if fields["price"] == nil { missing("price", in: item, itemPath, example: "2000") }
                    let price = integer(fields["price"], itemPath + ".price", range: 0...100_000_000, example: "2000")
                    if let id, let title, let price { products?.append(.init(id: id, title: title, price: price)) }
                }
            }
            let lifetime = integer(members["tokenLifetime"], path + ".tokenLifetime", range: 1...31_536_000, example: "3600")
            return .moltin(MoltinFixtureSpec(clients: clients, products: products, tokenLifetime: lifetime))
        case .clover:
            guard let members = object(node, path, allowed: Self.cloverFixtureKeys) else { return nil }
            var apps: [CloverFixtureSpec.App] = []
            for (item, itemPath) in elements(members, "apps", in: node, path, example: "[{\"id\": \"app-1\", \"secret\": \"...\", \"siteURL\": \"https://pos.example.com/\"}]") {
                guard let fields = object(item, itemPath, allowed: Self.cloverAppKeys) else { continue }
                let id = string(fields, "id", in: item, itemPath, required: true, example: "\"app-1\"")
                let secret = string(fields, "secret", in: item, itemPath, required: true, example: "\"app-secret\"")
                let site = string(fields, "siteURL", in: item, itemPath, required: true, example: "\"https://pos.example.com/\"")
                if let site, URL(string: site)?.host == nil {
                    report(fields["siteURL"]!.value, itemPath + ".siteURL", "siteURL \"\(site)\" is not an absolute URL", fix: "write it like \"https://pos.example.com/\"")
                }
                if let secret { checkSecretLength(secret, fields["secret"]!.value, itemPath + ".secret") }
                if let id, let secret, let site { apps.append(.init(id: id, secret: secret, siteURL: site)) }
            }
            var merchants: [CloverFixtureSpec.Merchant] = []
            for (item, itemPath) in elements(members, "merchants", in: node, path, example: "[{\"id\": \"M1\", \"name\": \"Cafe\", \"installedApps\": [\"app-1\"]}]") {
                guard let fields = object(item, itemPath, allowed: Self.cloverMerchantKeys) else { continue }
                let id = string(fields, "id", in: item, itemPath, required: true, example: "\"M1\"")
                let name = string(fields, "name", in: item, itemPath, required: true, example: "\"Cafe\"")
                var installed: [String] = []
                if let member = fields["installedApps"] {
                    for (i, app) in (array(member, itemPath + ".installedApps", example: "[\"app-1\"]") ?? []).enumerated() {
                        if case .string(let appID) = app.value { installed.append(appID) } else { typeMismatch(app, itemPath + ".installedApps[\(i)]", expected: "a string", example: "\"app-1\"") }
                    }
                } else {
                    missing("installedApps", in: item, itemPath, example: "[\"app-1\"]")
                }
                if let id, let name { merchants.append(.init(id: id, name: name, installedApps: installed)) }
            }
            var employees: [CloverFixtureSpec.Employee] = []
            for (item, itemPath) in elements(members, "employees", in: node, path, example: "[{\"email\": \"ann@example.com\", \"password\": \"...\", \"merchant\": \"M1\"}]") {
                guard let fields = object(item, itemPath, allowed: Self.cloverEmployeeKeys) else { continue }
                let email = string(fields, "email", in: item, itemPath, required: true, example: "\"ann@example.com\"")
                let password = string(fields, "password", in: item, itemPath, required: true, example: "\"...\"")
                let merchant = string(fields, "merchant", in: item, itemPath, required: true, example: "\"M1\"")
                if let merchant, !merchants.contains(where: { $0.id == merchant }) {
                    report(fields["merchant"]!.value, itemPath + ".merchant", "no merchant \"\(merchant)\" in the fixture", fix: merchants.isEmpty ? "add a merchant with the id \"\(merchant)\" to \"merchants\"" : Suggestion.fix(for: merchant, in: merchants.map(\.id), listName: "merchants"))
                }
                if let password { checkSecretLength(password, fields["password"]!.value, itemPath + ".password") }
                if let email, let password, let merchant { employees.append(.init(email: email, password: password, merchant: merchant)) }
            }
            let access = integer(members["accessTokenLifetime"], path + ".accessTokenLifetime", range: 1...31_536_000, example: "1800")
            let refresh = integer(members["refreshTokenLifetime"], path + ".refreshTokenLifetime", range: 1...315_360_000, example: "2592000")
            let code = integer(members["codeLifetime"], path + ".codeLifetime", range: 1...86_400, example: "300")
            return .clover(CloverFixtureSpec(apps: apps, merchants: merchants, employees: employees, accessTokenLifetime: access, refreshTokenLifetime: refresh, codeLifetime: code))
        case .clever:
            guard let members = object(node, path, allowed: Self.cleverFixtureKeys) else { return nil }
            var clients: [CleverFixtureSpec.Client] = []
            for (item, itemPath) in elements(members, "clients", in: node, path, example: "[{\"id\": \"CLE1\", \"redirectURL\": \"clever-cle1://oauth\"}]") {
                guard let fields = object(item, itemPath, allowed: Self.cleverClientKeys) else { continue }
                let id = string(fields, "id", in: item, itemPath, required: true, example: "\"CLE1\"")
                let redirect = string(fields, "redirectURL", in: item, itemPath, required: true, example: "\"clever-cle1://oauth\"")
                if let id, let redirect { clients.append(.init(id: id, redirectURL: redirect)) }
            }
            var users: [CleverFixtureSpec.User] = []
            for (item, itemPath) in elements(members, "users", in: node, path, example: "[{\"email\": \"student@example.com\", \"password\": \"...\"}]") {
                guard let fields = object(item, itemPath, allowed: Self.cleverUserKeys) else { continue }
                let email = string(fields, "email", in: item, itemPath, required: true, example: "\"student@example.com\"")
                let password = string(fields, "password", in: item, itemPath, required: true, example: "\"...\"")
                if let password { checkSecretLength(password, fields["password"]!.value, itemPath + ".password") }
                if let email, let password { users.append(.init(email: email, password: password)) }
            }
            return .clever(CleverFixtureSpec(clients: clients, users: users))
        case .braintree:
            guard let members = object(node, path, allowed: Self.braintreeFixtureKeys) else { return nil }
            let clientID = string(members, "clientId", in: node, path, required: true, example: "\"bt-client-1\"")
            let clientSecret = string(members, "clientSecret", in: node, path, required: true, example: "\"...\"")
            if let clientSecret { checkSecretLength(clientSecret, members["clientSecret"]!.value, path + ".clientSecret") }
            let returnURL = string(members, "returnURL", in: node, path, required: true, example: "\"examplescheme://braintree\"")
            if let returnURL, URL(string: returnURL)?.scheme == nil {
                report(members["returnURL"]!.value, path + ".returnURL", "returnURL \"\(returnURL)\" has no scheme", fix: "write the app's custom URL, e.g. \"examplescheme://braintree\" or \"com.example.app:/braintree\"")
            }
            var merchants: [BraintreeFixtureSpec.Merchant] = []
            for (item, itemPath) in elements(members, "merchants", in: node, path, example: "[{\"id\": \"M1\", \"email\": \"owner@example.com\", \"password\": \"...\"}]") {
                guard let fields = object(item, itemPath, allowed: Self.braintreeMerchantKeys) else { continue }
                let id = string(fields, "id", in: item, itemPath, required: true, example: "\"M1\"")
                let email = string(fields, "email", in: item, itemPath, required: true, example: "\"owner@example.com\"")
                let password = string(fields, "password", in: item, itemPath, required: true, example: "\"...\"")
                if let password { checkSecretLength(password, fields["password"]!.value, itemPath + ".password") }
                if let id, let email, let password { merchants.append(.init(id: id, email: email, password: password)) }
            }
            guard let clientID, let clientSecret, let returnURL else { return nil }
            return .braintree(BraintreeFixtureSpec(clientID: clientID, clientSecret: clientSecret, merchants: merchants, returnURL: returnURL))
        }
    }

    /// The elements of a required array member, each with its path.
    func elements(_ members: [String: JSONNode.Member], _ key: String, in node: JSONNode, _ path: String, example: String) -> [(JSONNode, String)] {
        guard let member = members[key] else {
            missing(key, in: node, path, example: example)
            return []
        }
        return (array(member, path + "." + key, example: example) ?? []).enumerated().map { ($1, path + ".\(key)[\($0)]") }
    }

    /// Fixture secrets are masked in every report by their text; one too short to mask without
    /// wrecking the report (a secret "ab" would hide every "ab") is refused instead.
    static let minimumSecretLength = 8

    func checkSecretLength(_ secret: String, _ node: JSONNode, _ path: String) {
        if secret.count < Self.minimumSecretLength {
            report(node, path, "a secret shorter than \(Self.minimumSecretLength) characters cannot be masked in reports", fix: "use at least \(Self.minimumSecretLength) characters, as a real secret would have")
        }
    }

}
