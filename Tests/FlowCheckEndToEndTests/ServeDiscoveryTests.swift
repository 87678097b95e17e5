import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import FlowCheckTestLanes
import Testing

/// `GET /` on every provider port, `--host`, and the control API's refusals.
@Suite(.integration, .timeLimit(.minutes(20)))
struct ServeDiscoveryTests {
    /// The default fixture's secrets (README, "Serving the fakes").
    static let secrets = ["serve-secret-1234", "serve-app-secret-1", "serve-password-1", "serve-password-2", "serve-bt-secret-1", "serve-password-3"]

    @Test func everyProviderPortListsItsEndpointsWithNoSecretAndHostWarns() async throws {
        let serve = try await ServeSession.launch(["--host", "0.0.0.0"])
        defer { serve.child.kill() }
        let expected: [String: (paths: [String], account: String)] = [
            "moltin": (["/oauth/access_token", "/v1/products"], "serve-client"),
            "clover": (["/oauth/v2/authorize", "/oauth/v2/login", "/oauth/v2/token", "/oauth/v2/refresh", "/v3/merchants/{mId}"], "employee@example.com"),
            "clever": (["/oauth/authorize", "/oauth/login", "/oauth/tokens"], "student@example.edu"),
            "braintree": (["/backend/connect-url", "/braintree/oauth/connect", "/braintree/oauth/login", "/backend/braintree/callback", "/braintree/oauth/access_tokens"], "SERVE-MERCHANT"),
        ]
        for (provider, want) in expected {
            let answer = try await serve.send("GET", try serve.baseURL(provider).appendingPathComponent("/"))
            let text = String(decoding: answer.body, as: UTF8.self)
            #expect(answer.status == 200, "\(provider): GET /")
            let document = try #require(try JSONSerialization.jsonObject(with: answer.body) as? [String: Any], "\(provider): GET / is JSON")
            let paths = (document["endpoints"] as? [[String: Any]] ?? []).compactMap { $0["path"] as? String }
            #expect(Set(want.paths).isSubset(of: Set(paths)), "\(provider) lists \(want.paths): \(paths)")
            #expect((document["accounts"] as? [[String: Any]] ?? []).contains { $0["id"] as? String == want.account }, "\(provider) lists \(want.account)")
            for secret in Self.secrets { #expect(!text.contains(secret), "\(provider): GET / shows no secret") }
        }
        #expect(serve.control.host == "127.0.0.1", "the control API stays on loopback whatever --host is")
        #expect(try await serve.stop() == 0)
        #expect(serve.child.stderr.text.contains("warning: --host 0.0.0.0"))
        for secret in Self.secrets { #expect(!serve.child.stdout.text.contains(secret)) }
    }

    @Test func controlAPIRefusesBadInputWithAReason() async throws {
        let serve = try await ServeSession.launch()
        defer { serve.child.kill() }
        let refused: [(method: String, path: String, body: String?, status: Int, reason: String)] = [
            ("POST", "/faults", nil, 400, "JSON object body is required"),
            ("POST", "/faults", "{not json", 400, "not JSON"),
            ("POST", "/faults", "[1]", 400, "must be a JSON object"),
            ("POST", "/faults", #"{"kind": "tokenNotValid"}"#, 400, "provider is required"),
            ("POST", "/faults", #"{"provider": "paypal", "kind": "tokenNotValid"}"#, 400, "provider paypal is not served"),
            ("POST", "/faults", #"{"provider": "moltin", "kind": "explode"}"#, 400, "kind explode is not a fault"),
            ("POST", "/faults", #"{"provider": "moltin", "kind": "serverError", "times": 0}"#, 400, "times must be a whole number"),
            ("POST", "/faults", #"{"provider": "moltin", "kind": "serverError", "path": "v1"}"#, 400, "path must start with /"),
            ("POST", "/clock", #"{"advance": "soon"}"#, 400, "advance must be a duration"),
            ("POST", "/clock", #"{"advance": -60}"#, 400, "forward"),
            ("POST", "/operations", #"{"provider": "moltin", "operation": "explode"}"#, 400, "no server operation"),
            ("GET", "/exchanges?since=minus", nil, 400, "since takes"),
            ("GET", "/nothing", nil, 404, "no control endpoint"),
            ("PUT", "/clock", "{}", 405, "/clock takes"),
        ]
        for case let (method, path, body, status, reason) in refused {
            let url = try #require(URL(string: serve.control.absoluteString + path))
            let answer = try await serve.send(method, url, body: body.map { Data($0.utf8) }, contentType: body == nil ? nil : "application/json")
            let document = try JSONSerialization.jsonObject(with: answer.body) as? [String: Any]
            #expect(answer.status == status, "\(method) \(path) \(body ?? "")")
            #expect((document?["reason"] as? String)?.contains(reason) == true, "\(method) \(path): \(String(decoding: answer.body, as: UTF8.self))")
        }
        // Nothing refused was armed.
        let faults = try await serve.send("GET", serve.control.appendingPathComponent("faults"))
        #expect(String(decoding: faults.body, as: UTF8.self) == #"{"faults":{"braintree":[],"clever":[],"clover":[],"moltin":[]}}"#)
        #expect(try await serve.stop() == 0)
    }
}
