import FlowCheckProviders
import FlowCheckSpec

/// Small Moltin flows made in memory, each its own client, secret and id, so a throughput run
/// needs no files and every flow is distinct (no caching can flatter the figure).
enum GeneratedFlows {
    /// Issue 24's three-request Moltin flow, the shape of `specs/moltin/refresh.json`: the
    /// tutorial's Auth, Refresh Token and Products calls, with the exact token request, the stored
    /// token, the refresh grant carrying it, the new token replacing it, and the bearer header
    /// the products call carries. (Before 2026-11-29 it was two calls, Auth then Products, so
    /// figures from earlier notes are not comparable with today's.)
    static let template = """
        {
          "id": "GEN-#",
          "title": "Generated flow #: auth, refresh, then products",
          "source": {"seed": "003_d427daaf6ba0e8e7.txt", "passage": "Refreshing a token"},
          "requirements": ["SEED-003-auth", "SEED-003-refresh", "SEED-003-bearer"],
          "provider": "moltin",
          "fixture": {"clients": [{"id": "client-#", "secret": "bench-secret-#"}]},
          "steps": [
            {"app": "auth", "with": {"clientId": "client-#", "clientSecret": "bench-secret-#"},
             "expect": {"outcome": "ok",
                        "requests": [{"method": "POST", "path": "/oauth/access_token",
                                      "headers": {"Content-Type": {"regex": "^application/x-www-form-urlencoded(;.*)?$"}},
                                      "form": {"grant_type": "client_credentials", "client_id": "client-#",
                                               "client_secret": "bench-secret-#"},
                                      "forbid": ["access_token"], "status": 200}]}},
            {"expect": {"store": {"accessToken": {"present": true, "capture": "first"}, "tokenType": "Bearer"}}},
            {"app": "refreshToken",
             "expect": {"outcome": "ok",
                        "requests": [{"method": "POST", "path": "/oauth/access_token",
                                      "form": {"grant_type": "refresh_token", "client_id": "client-#",
                                               "client_secret": "bench-secret-#", "refresh_token": "${first}"},
                                      "status": 200}],
                        "store": {"accessToken": {"notEquals": "${first}", "capture": "token"}}}},
            {"app": "products",
             "expect": {"result": {"productCount": "2"},
                        "requests": [{"method": "GET", "path": "/v1/products",
                                      "headers": {"Authorization": "Bearer ${token}"}, "status": 200}]}}
          ]
        }
        """

    /// Checks the template once, so a run can make its flows one at a time as they are needed.
    /// - Throws: ``BenchError`` if the template stops being a valid spec (the format changed).
    static func checkTemplate() throws(BenchError) {
        if case .invalid(let problems) = decode(1) {
            throw .harness("the generated spec template is invalid:\n" + problems.map(\.description).joined(separator: "\n"))
        }
    }

    /// The flow numbered `number`, e.g. `GEN-00001` for 1; nil only if the template is invalid,
    /// which ``checkTemplate()`` reports.
    static func spec(_ number: Int) -> FlowSpec? {
        if case .valid(let spec) = decode(number) { return spec }
        return nil
    }

    private static func decode(_ number: Int) -> SpecFile {
        let tag = String(repeating: "0", count: max(0, 5 - String(number).count)) + String(number)
        let text = template.replacingOccurrences(of: "#", with: tag)
        return SpecLoader.standard.decode(Array(text.utf8), file: "generated/\(tag).json")
    }
}
