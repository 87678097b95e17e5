import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import FlowCheckTestLanes
import Testing

/// `flowcheck serve` from outside, as curl would drive it: MLT-EXPIRED (specs/moltin/
/// expired.json) played over HTTP against a launched serve with only the control API to move
/// the clock and inject faults, and the walk-through in docs/serve.md held to the same requests.
@Suite(.integration, .timeLimit(.minutes(20)))
struct ServeWalkthroughTests {
    enum Target: String, Equatable {
        case moltin = "MOLTIN"
        case control = "CONTROL"
    }

    /// One request of the walk-through and the status MLT-EXPIRED expects of the fake.
    struct Step: Equatable {
        var target: Target
        var method: String
        /// Path and query, as written after `$MOLTIN` or `$CONTROL` in docs/serve.md.
        var path: String
        var status: Int
        var form: String? = nil
        var json: String? = nil
        var bearer = false
        var savesToken = false

        static func == (lhs: Step, rhs: Step) -> Bool {
            lhs.target == rhs.target && lhs.method == rhs.method && lhs.path == rhs.path
        }
    }

    static let credentials = "client_id=serve-client&client_secret=serve-secret-1234"
    static let products = Step(target: .moltin, method: "GET", path: "/v1/products", status: 200, bearer: true)
    static func auth(_ grant: String = "grant_type=client_credentials") -> Step {
        Step(target: .moltin, method: "POST", path: "/oauth/access_token", status: 200, form: grant + "&" + credentials, savesToken: true)
    }

    /// The walk-through of docs/serve.md, request by request (`$TOKEN` is the last token saved).
    static let walkthrough: [Step] = {
        var expired = products
        expired.status = 401
        return [
            Step(target: .moltin, method: "GET", path: "/", status: 200),
            auth(), products,
            Step(target: .control, method: "POST", path: "/clock", status: 200, json: #"{"advance": "61m"}"#),
            expired,
            auth("grant_type=refresh_token&refresh_token=$TOKEN"), products,
            Step(target: .control, method: "POST", path: "/faults", status: 200, json: #"{"provider": "moltin", "kind": "tokenNotValid", "path": "/v1/products", "times": 1}"#),
            expired, auth(), products,
            Step(target: .control, method: "POST", path: "/faults", status: 200, json: #"{"provider": "moltin", "kind": "tokenNotValid", "path": "/v1/products"}"#),
            expired, auth(), expired,
            Step(target: .control, method: "DELETE", path: "/faults", status: 200),
            Step(target: .control, method: "GET", path: "/exchanges?provider=moltin", status: 200),
        ]
    }()

    @Test func mltExpiredRunsFromOutsideOverHTTPAndTheControlAPI() async throws {
        let serve = try await ServeSession.launch()
        defer { serve.child.kill() }
        let moltin = try serve.baseURL("moltin")
        var token: String?
        var tokens: [String] = []
        var exchanges: [[String: Any]] = []
        for (number, step) in Self.walkthrough.enumerated() {
            let base = step.target == .moltin ? moltin : serve.control
            let url = try #require(URL(string: base.absoluteString + step.path))
            let form = step.form.map { $0.replacingOccurrences(of: "$TOKEN", with: token ?? "") }
            let body = form.map { Data($0.utf8) } ?? step.json.map { Data($0.utf8) }
            let answer = try await serve.send(step.method, url, body: body, contentType: form != nil ? "application/x-www-form-urlencoded" : (step.json != nil ? "application/json" : nil), bearer: step.bearer ? token : nil)
            let text = String(decoding: answer.body, as: UTF8.self)
            #expect(answer.status == step.status, "step \(number + 1), \(step.method) \(step.path): \(text)")
            let document = try JSONSerialization.jsonObject(with: answer.body) as? [String: Any]
            #expect(document != nil, "step \(number + 1) answers a JSON object: \(text)")
            if step.savesToken {
                token = try #require(document?["access_token"] as? String, "step \(number + 1) issues a token")
                tokens.append(token ?? "")
            }
            if step.status == 401 { #expect(text.contains("Access token is not valid")) }
            if step.path == "/clock" { #expect(document?["unix"] is Int) }
            if step.path.hasPrefix("/exchanges") { exchanges = document?["exchanges"] as? [[String: Any]] ?? [] }
        }
        #expect(Set(tokens).count == 4, "four tokens issued, each new")
        // The recorded exchanges are Moltin's requests in order, with the statuses the spec
        // expects; redacted: no token or secret in them.
        let moltinSteps = Self.walkthrough.filter { $0.target == .moltin }
        #expect(exchanges.map { $0["status"] as? Int } == moltinSteps.map(\.status))
        #expect(exchanges.map { $0["path"] as? String } == moltinSteps.map { $0.path })
        #expect(exchanges.compactMap { $0["fault"] as? String } == ["tokenNotValid", "tokenNotValid", "tokenNotValid"])
        let recorded = String(decoding: try JSONSerialization.data(withJSONObject: exchanges), as: UTF8.self)
        for secret in tokens + ["serve-secret-1234"] {
            #expect(!recorded.contains(secret), "the exchanges are redacted")
        }
        #expect(try await serve.stop() == 0)
        let log = serve.child.stdout.text
        #expect(log.contains("moltin  #7 GET /v1/products → 401 (fault: tokenNotValid)"))
        for secret in tokens + ["serve-secret-1234"] {
            #expect(!log.contains(secret), "the log is redacted")
        }
    }

    /// The walk-through in docs/serve.md cannot rot: its curl lines are the requests the test
    /// above runs.
    @Test func theDocumentedWalkthroughIsTheTestedSequence() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let readme = try String(contentsOf: root.appendingPathComponent("docs/serve.md"), encoding: .utf8)
        let start = try #require(readme.range(of: "<!-- walkthrough:begin -->"), "docs/serve.md has the walk-through")
        let end = try #require(readme.range(of: "<!-- walkthrough:end -->", range: start.upperBound..<readme.endIndex))
        let block = readme[start.upperBound..<end.lowerBound]
        let requests = try block.split(separator: "\n").filter { $0.contains("curl ") }.map { line throws -> Step in
            let target = try #require(line.firstMatch(of: /"\$(MOLTIN|CONTROL)(\/[^"]*)"/), "a curl line names $MOLTIN or $CONTROL: \(line)")
            let method = line.firstMatch(of: /-X ([A-Z]+)/).map { String($0.1) } ?? "GET"
            return Step(target: try #require(Target(rawValue: String(target.1))), method: method, path: String(target.2), status: 0)
        }
        #expect(requests == Self.walkthrough)
        #expect(block.contains("--ready-file"), "the walk-through waits for readiness")
        #expect(block.contains(#"{"advance": "61m"}"#) && block.contains(#""kind": "tokenNotValid", "path": "/v1/products", "times": 1}"#))
        #expect(block.contains("grant_type=refresh_token -d refresh_token=$TOKEN"))
    }
}
