import Foundation
import FlowCheckHarnessHTTP
import FlowCheckSpec

/// A request a spec sends to the fake itself (`"send"`), as any HTTP client would: for checking
/// what the server now thinks of a token the SDK no longer uses, for example. Built and sent
/// with the harness's own form encoding and ``HarnessHTTPClient``, never the SDK's.
enum HarnessRequest {
    /// Builds the request with variables substituted.
    static func make(_ spec: SendSpec, baseURL: URL, variables: [String: String]) throws -> HarnessHTTPRequest {
        let path = spec.path.render(variables)
        guard let url = URL(string: baseURL.absoluteString + path) else { throw DriverError("send: \(path) does not make a URL", party: .spec) }
        var headers = spec.headers.map { ($0.name, $0.value.render(variables)) }
        var body: [UInt8] = []
        if !spec.json.isEmpty {
            var object: [String: String] = [:]
            for field in spec.json { object[field.name] = field.value.render(variables) }
            body = Array(try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]))
            if !headers.contains(where: { $0.0.lowercased() == "content-type" }) { headers.append(("Content-Type", "application/json")) }
        } else if !spec.form.isEmpty {
            body = Array(HarnessFormEncoding.encode(spec.form.map { ($0.name, $0.value.render(variables)) }).utf8)
            if !headers.contains(where: { $0.0.lowercased() == "content-type" }) { headers.append(("Content-Type", "application/x-www-form-urlencoded")) }
        }
        return HarnessHTTPRequest(method: spec.method, url: url, headers: headers, body: body)
    }
}
