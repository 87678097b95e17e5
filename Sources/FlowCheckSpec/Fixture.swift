/// Server fixture data, per provider.
public enum Fixture: Sendable, Equatable {
    case moltin(MoltinFixtureSpec)
    case clover(CloverFixtureSpec)
    case clever(CleverFixtureSpec)
    case braintree(BraintreeFixtureSpec)

    /// Every secret the fixture holds (for redaction: none of them may reach a report).
    public var secrets: [String] {
        switch self {
        case .moltin(let fixture): return fixture.clients.map(\.secret)
        case .clover(let fixture): return fixture.apps.map(\.secret) + fixture.employees.map(\.password)
        case .clever(let fixture): return fixture.users.map(\.password)
        case .braintree(let fixture): return [fixture.clientSecret] + fixture.merchants.map(\.password)
        }
    }
}

/// The Clover fake's data: apps with their site URLs, merchants and the apps they installed,
/// employees who log in.
public struct CloverFixtureSpec: Sendable, Equatable {
    public struct App: Sendable, Equatable {
        public var id: String
        public var secret: String
        public var siteURL: String
        public init(id: String, secret: String, siteURL: String) {
            self.id = id
            self.secret = secret
            self.siteURL = siteURL
        }
    }

    public struct Merchant: Sendable, Equatable {
        public var id: String
        public var name: String
        public var installedApps: [String]
        public init(id: String, name: String, installedApps: [String]) {
            self.id = id
            self.name = name
            self.installedApps = installedApps
        }
    }

    public struct Employee: Sendable, Equatable {
        public var email: String
        public var password: String
        public var merchant: String
        public init(email: String, password: String, merchant: String) {
            self.email = email
            self.password = password
            self.merchant = merchant
        }
    }

    public var apps: [App]
    public var merchants: [Merchant]
    public var employees: [Employee]
    /// Seconds; nil means the fake's defaults (30 minutes, 30 days, 5 minutes).
    public var accessTokenLifetime: Int?
    public var refreshTokenLifetime: Int?
    public var codeLifetime: Int?

    public init(apps: [App], merchants: [Merchant], employees: [Employee], accessTokenLifetime: Int? = nil, refreshTokenLifetime: Int? = nil, codeLifetime: Int? = nil) {
        self.apps = apps
        self.merchants = merchants
        self.employees = employees
        self.accessTokenLifetime = accessTokenLifetime
        self.refreshTokenLifetime = refreshTokenLifetime
        self.codeLifetime = codeLifetime
    }
}

/// The Clever fake's data: iOS-platform clients with their custom redirect URLs, and users.
public struct CleverFixtureSpec: Sendable, Equatable {
    public struct Client: Sendable, Equatable {
        public var id: String
        public var redirectURL: String
        public init(id: String, redirectURL: String) {
            self.id = id
            self.redirectURL = redirectURL
        }
    }

    public struct User: Sendable, Equatable {
        public var email: String
        public var password: String
        public init(email: String, password: String) {
            self.email = email
            self.password = password
        }
    }

    public var clients: [Client]
    public var users: [User]

    public init(clients: [Client], users: [User]) {
        self.clients = clients
        self.users = users
    }
}

/// The Braintree fake's data: the merchant backend's OAuth client, merchants who approve, and
/// the app's return URL.
public struct BraintreeFixtureSpec: Sendable, Equatable {
    public struct Merchant: Sendable, Equatable {
        public var id: String
        public var email: String
        public var password: String
        public init(id: String, email: String, password: String) {
            self.id = id
            self.email = email
            self.password = password
        }
    }

    public var clientID: String
    public var clientSecret: String
    public var merchants: [Merchant]
    public var returnURL: String

    public init(clientID: String, clientSecret: String, merchants: [Merchant], returnURL: String) {
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.merchants = merchants
        self.returnURL = returnURL
    }
}

/// The Moltin fake's data: registered clients and the product catalogue.
public struct MoltinFixtureSpec: Sendable, Equatable {
    public struct Client: Sendable, Equatable {
        public var id: String
        public var secret: String
        public init(id: String, secret: String) {
            self.id = id
            self.secret = secret
        }
    }

    public struct Product: Sendable, Equatable {
        public var id: String
        public var title: String
        public var price: Int
        public init(id: String, title: String, price: Int) {
            self.id = id
            self.title = title
            self.price = price
        }
    }

    public var clients: [Client]
    /// Nil means the fake's default catalogue.
    public var products: [Product]?
    /// Seconds; nil means the tutorial's one hour.
    public var tokenLifetime: Int?

    public init(clients: [Client], products: [Product]? = nil, tokenLifetime: Int? = nil) {
        self.clients = clients
        self.products = products
        self.tokenLifetime = tokenLifetime
    }
}
