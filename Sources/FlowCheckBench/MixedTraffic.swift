import Foundation
import FlowCheckFakeServer
import FlowCheckServe

/// Every default provider of a `serve` host driven through its whole documented flow, again and
/// again, one thread per provider, each on keep-alive connections: what a team's test suite
/// does to a `serve` it keeps running. Each round issues codes and tokens, so a host that kept
/// every secret it issued would grow with every round.
///
/// - Moltin: a token, three catalogue calls, and every fifth round a refresh;
/// - Clover (Full OAuth): authorize, the employee's login, the code exchanged with its PKCE
///   verifier, a merchant call, a refresh, a merchant call with the new token;
/// - Clever: authorize, the user's login, the code exchanged with the client's Basic credentials;
/// - Braintree: the backend's connect URL, the merchant's login, the backend's callback (which
///   exchanges the code).
struct MixedTraffic {
    /// What the threads did: rounds and tokens issued, and the first failure, if any.
    final class Tally: Sendable {
        private let counts = Locked<(rounds: Int, tokens: Int, failure: String?)>((0, 0, nil))
        var rounds: Int { counts.withLock { $0.rounds } }
        var tokens: Int { counts.withLock { $0.tokens } }
        var failure: String? { counts.withLock { $0.failure } }

        func add(rounds: Int, tokens: Int) {
            counts.withLock { $0.rounds += rounds; $0.tokens += tokens }
        }

        func fail(_ why: String) {
            counts.withLock { if $0.failure == nil { $0.failure = why } }
        }
    }

    let endpoints: [FakeProviderHost.Endpoint]

    /// Runs every provider's rounds until `deadline` (one thread each), then returns.
    func run(until deadline: ContinuousClock.Instant, tally: Tally) {
        let done = DispatchGroup()
        for endpoint in endpoints {
            guard let round = Self.round(for: endpoint) else { continue }
            done.enter()
            let thread = Thread {
                defer { done.leave() }
                var rounds = 0
                var tokens = 0
                defer { tally.add(rounds: rounds, tokens: tokens) }
                do {
                    var clients = try Clients(endpoint)
                    while ContinuousClock.now < deadline {
                        tokens += try round(&clients, rounds)
                        rounds += 1
                    }
                } catch {
                    tally.fail("\(endpoint.provider.rawValue), round \(rounds + 1): \(error)")
                }
            }
            thread.name = "flowcheck-bench.mixed"
            thread.start()
        }
        done.wait()
    }

    /// One keep-alive connection per origin of a provider.
    struct Clients {
        var byOrigin: [String: (connection: LoadConnection, port: Int)] = [:]

        init(_ endpoint: FakeProviderHost.Endpoint) throws(BenchError) {
            // The primary origin as `main`, and each other origin by its name (Clover's `web`).
            var urls = [FakeOrigin.main: endpoint.baseURL]
            for (origin, url) in endpoint.baseURLs where url != endpoint.baseURL { urls[origin] = url }
            for (origin, url) in urls {
                guard let port = url.port else { throw .harness("\(url) has no port") }
                byOrigin[origin] = (try LoadConnection(port: port), port)
            }
        }

        /// `method path` on `origin`, with `headers` and `body`; the response, which must have
        /// the status `expecting`.
        func send(_ method: String, _ path: String, on origin: String = FakeOrigin.main, headers: [(String, String)] = [], body: String = "", expecting: Int) throws(BenchError) -> LoadResponse {
            guard let (connection, port) = byOrigin[origin] else { throw .harness("no connection to the \(origin) origin") }
            var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n"
            for (name, value) in headers { head += "\(name): \(value)\r\n" }
            if method == "POST" { head += "Content-Length: \(body.utf8.count)\r\n" }
            let response = try connection.exchange(Array((head + "\r\n" + body).utf8))
            guard response.status == expecting else {
                throw .harness("\(method) \(path) answered \(response.status), not \(expecting): \(response.body.prefix(200))")
            }
            return response
        }
    }

    /// A provider's round: the tokens it issued.
    typealias Round = @Sendable (inout Clients, Int) throws(BenchError) -> Int

    private static let form = ("Content-Type", "application/x-www-form-urlencoded")
    private static let json = ("Content-Type", "application/json")

    static func round(for endpoint: FakeProviderHost.Endpoint) -> Round? {
        switch endpoint.provider.rawValue {
        case "moltin": return moltin
        case "clover": return clover
        case "clever": return clever
        case "braintree": return braintree
        default: return nil
        }
    }

    private static let moltinClient = "client_id=serve-client&client_secret=serve-secret-1234"

    private static func moltin(_ clients: inout Clients, _ number: Int) throws(BenchError) -> Int {
        let answer = try clients.send("POST", FakeMoltin.tokenPath, headers: [form], body: "grant_type=client_credentials&" + moltinClient, expecting: 200)
        let token = try field("access_token", in: answer)
        for _ in 0..<3 {
            _ = try clients.send("GET", FakeMoltin.productsPath, headers: [("Authorization", "Bearer \(token)")], expecting: 200)
        }
        guard number % 5 == 4 else { return 1 }
        _ = try clients.send("POST", FakeMoltin.tokenPath, headers: [form], body: "grant_type=refresh_token&refresh_token=\(token)&" + moltinClient, expecting: 200)
        return 2
    }

    private static func clover(_ clients: inout Clients, _ number: Int) throws(BenchError) -> Int {
        let verifier = "bench-verifier-" + String(repeating: "v", count: 32) + String(number)
        let challenge = FakeCrypto.s256Challenge(for: verifier)
        let query = "client_id=SERVEAPP&redirect_uri=https%3A%2F%2Fapp.example.com%2Fcb&response_type=code&code_challenge=\(challenge)&code_challenge_method=S256&state=st"
        let page = try clients.send("GET", FakeClover.authorizePath + "?" + query, on: FakeClover.webOrigin, expecting: 200)
        let login = "request_id=\(try requestID(in: page))&email=employee%40example.com&password=serve-password-1&action=login"
        let redirect = try clients.send("POST", FakeClover.loginPath, on: FakeClover.webOrigin, headers: [form], body: login, expecting: 302)
        let code = try queryItem("code", in: redirect)
        let merchant = try queryItem("merchant_id", in: redirect)
        let pair = try clients.send("POST", FakeClover.tokenPath, headers: [json], body: #"{"client_id":"SERVEAPP","code":"\#(code)","code_verifier":"\#(verifier)"}"#, expecting: 200)
        _ = try clients.send("GET", FakeClover.merchantsPrefix + merchant, headers: [("Authorization", "Bearer \(try field("access_token", in: pair))")], expecting: 200)
        let refreshed = try clients.send("POST", FakeClover.refreshPath, headers: [json], body: #"{"client_id":"SERVEAPP","refresh_token":"\#(try field("refresh_token", in: pair))"}"#, expecting: 200)
        _ = try clients.send("GET", FakeClover.merchantsPrefix + merchant, headers: [("Authorization", "Bearer \(try field("access_token", in: refreshed))")], expecting: 200)
        return 5
    }

    private static func clever(_ clients: inout Clients, _ number: Int) throws(BenchError) -> Int {
        let query = "response_type=code&client_id=serve-clever&redirect_uri=clever-serve%3A%2F%2Foauth&state=s\(number)"
        let page = try clients.send("GET", FakeClever.authorizePath + "?" + query, expecting: 200)
        let login = "request_id=\(try requestID(in: page))&email=student%40example.edu&password=serve-password-2&action=login"
        let redirect = try clients.send("POST", FakeClever.loginPath, headers: [form], body: login, expecting: 302)
        let body = "code=\(try queryItem("code", in: redirect))&grant_type=authorization_code&redirect_uri=clever-serve%3A%2F%2Foauth"
        let basic = "Basic " + Data("serve-clever:".utf8).base64EncodedString()
        _ = try clients.send("POST", FakeClever.tokenPath, headers: [form, ("Authorization", basic)], body: body, expecting: 200)
        return 2
    }

    private static func braintree(_ clients: inout Clients, _ number: Int) throws(BenchError) -> Int {
        let connect = try field("connectURL", in: try clients.send("GET", FakeBraintreeConnect.connectURLPath, expecting: 200))
        guard let url = URL(string: connect), let query = url.query else { throw .harness("no connect URL in \(connect)") }
        let page = try clients.send("GET", url.path + "?" + query, expecting: 200)
        let login = "request_id=\(try requestID(in: page))&email=owner%40example.com&password=serve-password-3&action=login"
        let redirect = try clients.send("POST", FakeBraintreeConnect.loginPath, headers: [form], body: login, expecting: 302)
        guard let location = redirect.header("Location"), let callback = URL(string: location), let back = callback.query else {
            throw .harness("the login redirected nowhere")
        }
        let end = try clients.send("GET", callback.path + "?" + back, expecting: 302)
        guard end.header("Location")?.contains("connected") == true else { throw .harness("the callback did not connect: \(end.header("Location") ?? "")") }
        return 3
    }

    // MARK: - Reading answers

    private static func field(_ name: String, in response: LoadResponse) throws(BenchError) -> String {
        guard case .object(let fields)? = FakeJSON.parse(Data(response.body.utf8)), case .string(let value)? = fields[name] else {
            throw .harness("no \(name) in \(response.body.prefix(200))")
        }
        return value
    }

    private static func requestID(in page: LoadResponse) throws(BenchError) -> String {
        let body = page.body
        guard let marker = body.range(of: #"name="request_id" value=""#),
              let end = body[marker.upperBound...].firstIndex(of: "\"") else { throw .harness("no request_id in the login page") }
        return String(body[marker.upperBound..<end])
    }

    private static func queryItem(_ name: String, in redirect: LoadResponse) throws(BenchError) -> String {
        guard let location = redirect.header("Location"), let components = URLComponents(string: location),
              let value = components.queryItems?.first(where: { $0.name == name })?.value else {
            throw .harness("no \(name) in the redirect to \(redirect.header("Location") ?? "nowhere")")
        }
        return value
    }
}
