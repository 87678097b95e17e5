import Foundation
import FlowCheckFakeServer

/// Renders recorded exchanges as text with secrets removed by structure: sensitive form and
/// JSON fields and `Authorization` values are masked before anything becomes a string, and
/// each body is masked (`mask`: every secret the caller knows) before it is cut, so a secret
/// across the cut is masked whole rather than half shown.
package enum Transcript {
    /// Bodies longer than this are cut in transcripts.
    static let bodyLimit = 2048

    package static func render(_ exchange: RecordedExchange, mask: (String) -> String = { $0 }) -> String {
        let request = exchange.request
        let response = exchange.response
        var lines = [head(exchange)]
        for (name, value) in request.headers.pairs {
            lines.append("> \(name): \(maskHeader(name, value))")
        }
        if !request.body.isEmpty { lines.append("> " + body(request.body, contentType: request.headers["Content-Type"], mask: mask)) }
        for (name, value) in response.headers.pairs where name.lowercased() != FlowCheckRule.header.lowercased() {
            lines.append("< \(name): \(maskHeader(name, value))")
        }
        if !response.body.isEmpty { lines.append("< " + body(response.body, contentType: response.headers["Content-Type"], mask: mask)) }
        return lines.joined(separator: "\n")
    }

    /// The transcript's first line alone (`serve`'s log line): number, method, target with
    /// sensitive query values masked, status, and the rule, origin and fault when there are
    /// any. Nothing of the bodies is read, so logging an exchange costs the same whatever it carried.
    package static func head(_ exchange: RecordedExchange) -> String {
        var head = "#\(exchange.index + 1) \(exchange.request.method) \(maskQuery(exchange.request.target)) → \(exchange.response.status)"
        // Why a fake refused: the rule beside the status (its header line is then not repeated).
        if let rule = exchange.rule { head += " [\(rule.rawValue)]" }
        // A provider with several origins (Clover's web and API hosts): which one it came in on.
        if exchange.origin != FakeOrigin.main { head += " (on \(exchange.origin))" }
        if let fault = exchange.fault { head += " (fault: \(fault))" }
        return head
    }

    private static func maskHeader(_ name: String, _ value: String) -> String {
        let lowered = name.lowercased()
        if lowered == "authorization" || lowered == "proxy-authorization" {
            let scheme = value.split(separator: " ", maxSplits: 1).first.map(String.init) ?? ""
            return value.contains(" ") ? "\(scheme) \(Redactor.mask)" : Redactor.mask
        }
        if lowered == "cookie" || lowered == "set-cookie" { return Redactor.mask }
        if lowered == "location" { return maskQuery(value) }
        return value
    }

    /// Masks sensitive query parameters (`code`, `access_token`, ...) in a URL or target.
    static func maskQuery(_ target: String) -> String {
        guard let mark = target.firstIndex(of: "?") else { return target }
        let query = target[target.index(after: mark)...]
        let masked = query.split(separator: "&", omittingEmptySubsequences: false).map { pair -> String in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2, Redactor.isSensitive(field: String(parts[0])) else { return String(pair) }
            return "\(parts[0])=\(Redactor.mask)"
        }
        return String(target[..<mark]) + "?" + masked.joined(separator: "&")
    }

    private static func body(_ data: Data, contentType: String?, mask: (String) -> String) -> String {
        let type = contentType?.lowercased() ?? ""
        // The fake's own JSON tree, not JSONSerialization: bridging every body through
        // NSDictionary and back, sorted, was half the cost of building a flow's result.
        if type.hasPrefix("application/json") || type.isEmpty, let value = FakeJSON.parse(data) {
            return cut(maskJSON(value).compactText, mask)
        }
        // Bytes, not `String.contains(String)`, which goes through NSString on Linux.
        if type.hasPrefix("application/x-www-form-urlencoded") || type.isEmpty, let text = String(data: data, encoding: .utf8),
           !text.utf8.contains(UInt8(ascii: " ")), !text.utf8.contains(UInt8(ascii: "\n")), text.utf8.contains(UInt8(ascii: "=")) {
            let pairs = text.split(separator: "&", omittingEmptySubsequences: false).map { pair -> String in
                let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                let name = String(parts[0]).removingPercentEncoding ?? String(parts[0])
                guard Redactor.isNameShowable(name) else { return "\(Redactor.mask)=\(Redactor.mask)" }
                guard parts.count == 2, Redactor.isSensitive(field: name) else { return String(pair) }
                return "\(parts[0])=\(Redactor.mask)"
            }
            return "form: " + cut(pairs.joined(separator: "&"), mask)
        }
        guard let text = String(data: data, encoding: .utf8) else { return "(\(data.count) bytes, not UTF-8)" }
        return cut(Redactor.replacing("\n", with: "\\n", in: text), mask)
    }

    private static func maskJSON(_ value: FakeJSON) -> FakeJSON {
        switch value {
        case .object(let fields):
            var masked: [String: FakeJSON] = [:]
            for (key, inner) in fields {
                switch inner {
                case .object, .array: masked[key] = maskJSON(inner)
                default: masked[key] = Redactor.isSensitive(field: key) ? .string(Redactor.mask) : inner
                }
            }
            return .object(masked)
        case .array(let items):
            return .array(items.map(maskJSON))
        default:
            return value
        }
    }

    /// `text` masked and cut to ``bodyLimit`` characters. Masked here only when it is cut: a
    /// whole body is masked with the rest of the transcript by the caller (every caller scrubs
    /// the rendered text), and masking it twice was a share of every flow's result.
    private static func cut(_ text: String, _ mask: (String) -> String) -> String {
        guard text.count > bodyLimit else { return text }
        let masked = mask(text)
        return masked.count > bodyLimit ? String(masked.prefix(bodyLimit)) + "… (\(masked.count - bodyLimit) more characters)" : masked
    }
}
