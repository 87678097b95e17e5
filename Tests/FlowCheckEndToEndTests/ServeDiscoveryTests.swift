import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import FlowCheckTestLanes
import FlowCheckTestSupport
import Testing

/// `GET /` on every provider port, `--host`, and the control API's refusals.
@Suite(.integration, .timeLimit(.minutes(20)))
struct ServeDiscoveryTests {
    /// The default fixture's secrets (docs/serve.md).
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
        #expect(FileManager.default.fileExists(atPath: serve.readyFile.path))
        #expect(try await serve.stop() == 0)
        #expect(!FileManager.default.fileExists(atPath: serve.readyFile.path), "a stopped serve leaves no ready file pointing at it")
        #expect(serve.child.stderr.text.contains("warning: --host 0.0.0.0"))
        for secret in Self.secrets { #expect(!serve.child.stdout.text.contains(secret)) }
    }

    @Test func controlAPIRefusesBadInputWithAReason() async throws {
        let serve = try await ServeSession.launch()
        defer { serve.child.kill() }
        let started = String(decoding: try await serve.send("GET", serve.control.appendingPathComponent("clock")).body, as: UTF8.self)
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
            // A misspelt key would arm a fault for good with what was meant left out.
            ("POST", "/faults", #"{"provider": "moltin", "kind": "serverError", "tims": 2}"#, 400, #"unknown key "tims""#),
            ("POST", "/clock", #"{"advance": 60, "advance": 120}"#, 400, #"key "advance" is given twice"#),
            ("POST", "/operations", #"{"provider": "moltin", "operation": "revokeTokens", "provider": "clover"}"#, 400, "given twice"),
            // At most ten years a move, as a number or as a duration.
            ("POST", "/clock", #"{"advance": "10000000h"}"#, 400, "advance must be a duration"),
            ("POST", "/clock", #"{"advance": -9223372036854775808}"#, 400, "advance must be a duration"),
            ("POST", "/faults", #"{"provider": "moltin", "kind": "stall", "clockAdvance": "90000d"}"#, 400, "clockAdvance must be a duration"),
            // The stall's move is a clock move as POST /clock's is: forward only.
            ("POST", "/faults", #"{"provider": "clever", "kind": "stall", "clockAdvance": -315360000, "times": 1}"#, 400, "clockAdvance must move the clock forward"),
            ("POST", "/faults", #"{"provider": "clever", "kind": "stall", "clockAdvance": 0}"#, 400, "clockAdvance must move the clock forward"),
            ("GET", "/exchanges?provder=moltin", nil, 400, #"unknown query parameter "provder""#),
            ("GET", "/faults?provider=moltin&provider=clover", nil, 400, "query parameter provider is given twice"),
            ("DELETE", "/faults?everything=1", nil, 400, "unknown query parameter"),
            ("PUT", "/clock", "{}", 405, "/clock takes"),
        ]
        for case let (method, path, body, status, reason) in refused {
            let url = try #require(URL(string: serve.control.absoluteString + path))
            let answer = try await serve.send(method, url, body: body.map { Data($0.utf8) }, contentType: body == nil ? nil : "application/json")
            let document = try JSONSerialization.jsonObject(with: answer.body) as? [String: Any]
            #expect(answer.status == status, "\(method) \(path) \(body ?? "")")
            #expect((document?["reason"] as? String)?.contains(reason) == true, "\(method) \(path): \(String(decoding: answer.body, as: UTF8.self))")
        }
        // Nothing refused was armed, and the clock did not move.
        let faults = try await serve.send("GET", serve.control.appendingPathComponent("faults"))
        #expect(String(decoding: faults.body, as: UTF8.self) == #"{"faults":{"braintree":[],"clever":[],"clover":[],"moltin":[]}}"#)
        let clock = String(decoding: try await serve.send("GET", serve.control.appendingPathComponent("clock")).body, as: UTF8.self)
        #expect(clock == started, "the refused moves left the clock where it was")
        // A request the HTTP parser refuses is answered in JSON on the control port too.
        let connection = try await RawConnection.connect(port: serve.control.port ?? 0, sending: "GET /clock HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n")
        defer { connection.close() }
        let raw = try #require(try await connection.readResponse())
        #expect(raw.status == 400)
        #expect(raw.header("Content-Type")?.hasPrefix("application/json") == true, "\(raw.headers)")
        #expect((try JSONSerialization.jsonObject(with: Data(raw.body)) as? [String: Any])?["reason"] is String, "\(raw.bodyText)")
        #expect(try await serve.stop() == 0)
    }

    /// Ten-year moves add up to no more than a hundred years: past that the clock is refused
    /// (and does not move), so it never dates tokens in a year ISO 8601 cannot write.
    @Test func theClockStopsAHundredYearsOn() async throws {
        let serve = try await ServeSession.launch()
        defer { serve.child.kill() }
        let clock = serve.control.appendingPathComponent("clock")
        let tenYears = Data(#"{"advance": 315360000}"#.utf8)
        var statuses: [Int] = []
        for _ in 0..<11 {
            statuses.append(try await serve.send("POST", clock, body: tenYears, contentType: "application/json").status)
        }
        #expect(statuses == Array(repeating: 200, count: 10) + [400], "\(statuses)")
        let before = String(decoding: try await serve.send("GET", clock).body, as: UTF8.self)
        let refused = try await serve.send("POST", clock, body: tenYears, contentType: "application/json")
        #expect(refused.status == 400 && String(decoding: refused.body, as: UTF8.self).contains("a hundred years"))
        let stall = Data(#"{"provider": "clever", "kind": "stall", "clockAdvance": 315360000}"#.utf8)
        #expect(try await serve.send("POST", serve.control.appendingPathComponent("faults"), body: stall, contentType: "application/json").status == 400)
        #expect(String(decoding: try await serve.send("GET", clock).body, as: UTF8.self) == before, "a refused move leaves the clock")
        #expect(try await serve.stop() == 0)
    }

    /// The control API's own answers quote what was sent (an unknown provider, kind, key or
    /// path, and a fault's path, which `GET /faults` then lists): a token sent there comes back
    /// masked, in every answer, as in the log and `GET /exchanges`.
    @Test func controlAnswersNeverEchoATokenOrSecret() async throws {
        let serve = try await ServeSession.launch()
        defer { serve.child.kill() }
        let token = try await Self.moltinToken(from: serve)
        let faults = serve.control.appendingPathComponent("faults")
        var answers: [String] = []
        for body in [
            #"{"provider": "\#(token)", "kind": "serverError"}"#,
            #"{"provider": "moltin", "kind": "\#(token)"}"#,
            #"{"provider": "moltin", "kind": "serverError", "\#(token)": 1}"#,
            #"{"provider": "moltin", "kind": "serverError", "path": "/\#(token)"}"#,
            #"{"provider": "moltin", "kind": "serverError", "path": "/serve-secret-1234"}"#,
        ] {
            answers.append(String(decoding: try await serve.send("POST", faults, body: Data(body.utf8), contentType: "application/json").body, as: UTF8.self))
        }
        for path in ["/faults", "/\(token)", "/faults?provider=\(token)", "/exchanges?since=\(token)"] {
            let url = try #require(URL(string: serve.control.absoluteString + path))
            answers.append(String(decoding: try await serve.send("GET", url).body, as: UTF8.self))
        }
        #expect(answers.allSatisfy { $0.hasPrefix("{") }, "every answer is JSON: \(answers)")
        #expect(answers.allSatisfy { $0.contains("‹redacted›") }, "each quotes the token or secret, masked: \(answers)")
        let piece = String(token.prefix(12))
        for answer in answers {
            #expect(!answer.contains(piece) && !answer.contains("serve-secret-1234"), "\(answer)")
        }
        #expect(try await serve.stop() == 0)
    }

    /// A token the serve's Moltin issues (the default fixture's client).
    static func moltinToken(from serve: ServeSession) async throws -> String {
        let grant = Data("grant_type=client_credentials&client_id=serve-client&client_secret=serve-secret-1234".utf8)
        let issued = try await serve.send("POST", try serve.baseURL("moltin").appendingPathComponent("oauth/access_token"), body: grant, contentType: "application/x-www-form-urlencoded")
        return try #require((try JSONSerialization.jsonObject(with: issued.body) as? [String: Any])?["access_token"] as? String)
    }

    /// One provider's token sent to another provider's port is masked in `GET /exchanges` as
    /// in the log: one redactor for the whole host.
    @Test func exchangesMaskEveryProvidersSecretsOnEveryPort() async throws {
        let serve = try await ServeSession.launch()
        defer { serve.child.kill() }
        let token = try await Self.moltinToken(from: serve)
        // In the path, where no header or field name marks it as a credential (a client that
        // pastes a token into a URL).
        _ = try await serve.send("GET", try serve.baseURL("clover").appendingPathComponent("v3/merchants/\(token)"))
        let url = try #require(URL(string: serve.control.absoluteString + "/exchanges?provider=clover"))
        let exchanges = String(decoding: try await serve.send("GET", url).body, as: UTF8.self)
        #expect(exchanges.contains("/v3/merchants/"), "the request is listed")
        #expect(!exchanges.contains(token), "moltin's token sent to clover's port: \(exchanges)")
        #expect(try await serve.stop() == 0)
        #expect(!serve.child.stdout.text.contains(token) && !serve.child.stderr.text.contains(token))
    }

    /// A token in the encodings clients and SDK logs really produce, sent to a port that never
    /// issued it: the host knows it by its shape (it keeps no list of what it issued), so the
    /// log (which shows the request line) and `GET /exchanges` (whole transcripts) mask it in
    /// each form, and no form of it is left to find.
    @Test func aTokenIsMaskedInEveryFormOnAPortThatNeverIssuedIt() async throws {
        let serve = try await ServeSession.launch()
        defer { serve.child.kill() }
        let token = try await Self.moltinToken(from: serve)
        let everyByte = token.utf8.map { String(format: "%%%02X", $0) }.joined()
        // Base64url, so no `/` that JSON would escape; glued to a letter, so it starts mid-run.
        let base64 = "x" + Data("user:\(token)".utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        let clever = try serve.baseURL("clever")
        for form in [everyByte, base64] {
            _ = try await serve.send("GET", try #require(URL(string: clever.absoluteString + "/nowhere/" + form)))
        }
        // Every character `\u`-escaped, in a JSON body (the transcript shows bodies, the log does not).
        let escaped = token.unicodeScalars.map { String(format: "\\u%04x", $0.value) }.joined()
        _ = try await serve.send("POST", try #require(URL(string: clever.absoluteString + "/nowhere")), body: Data("{\"t\":\"\(escaped)\"}".utf8), contentType: "application/json")
        let url = try #require(URL(string: serve.control.absoluteString + "/exchanges?provider=clever"))
        let listed = try await serve.send("GET", url).body
        // Searched as decoded JSON: the raw answer escapes `/` and quotes.
        let exchanges = try #require(try JSONSerialization.jsonObject(with: listed) as? [String: Any])["exchanges"] as? [[String: Any]]
        let shown = try #require(exchanges).map { exchange in
            ((exchange["transcript"] as? [String]) ?? []).joined(separator: "\n") + " " + ((exchange["path"] as? String) ?? "")
        }.joined(separator: "\n")
        #expect(try await serve.stop() == 0)
        let log = serve.child.stdout.text
        #expect(log.contains("/nowhere/") && shown.contains("/nowhere/"), "the requests are logged and listed: \(log)")
        #expect(shown.contains("{\"t\":"), "the JSON body is listed: \(shown)")
        for form in [everyByte, base64, escaped, token] {
            #expect(!shown.contains(form) && !log.contains(form), "shown: \(form)")
        }
        // Nor any long piece of it, as it is or decoded.
        let piece = String(token.dropFirst(20).prefix(16))
        #expect(!log.contains(piece) && !shown.contains(piece) && !(shown.removingPercentEncoding ?? "").contains(piece))
    }
}
