import Foundation
import FlowCheckFakeServer
import FlowCheckRunner
import FlowCheckSpec

/// Why the control API refused a request (answered 400 with it as `reason`).
struct ServeControlError: Error {
    let reason: String

    init(_ reason: String) {
        self.reason = reason
    }
}

/// A control request's JSON object body, read field by field with a reason for every refusal.
struct ServeControlInput {
    private let fields: [String: FakeJSON]

    /// - Parameter keys: every key the route takes; any other, or one given twice, is refused
    ///   (a misspelt key would otherwise be ignored and the request half done).
    init(_ request: HTTPRequest, keys: [String]) throws(ServeControlError) {
        guard !request.body.isEmpty else { throw ServeControlError("a JSON object body is required") }
        guard let parsed = FakeJSON.parse(request.body) else {
            throw ServeControlError("the body is not JSON (send a JSON object, e.g. {\"provider\": \"moltin\"})")
        }
        guard case .object(let object) = parsed else { throw ServeControlError("the body must be a JSON object") }
        if let repeated = FakeJSON.repeatedTopLevelKey(in: Data(request.body)) {
            throw ServeControlError("key \("\"" + ControlCharacters.escaped(repeated) + "\"") is given twice; give each key once")
        }
        if let unknown = object.keys.sorted().first(where: { !keys.contains($0) }) {
            throw ServeControlError("unknown key \("\"" + ControlCharacters.escaped(unknown) + "\""); \(request.method) \(request.path) takes \(keys.joined(separator: ", "))")
        }
        fields = object
    }

    /// The longest clock move or stall one request may ask for.
    static let maxSeconds = 10 * 365 * 86_400

    /// The query of a GET or DELETE: only `names`, each at most once.
    static func query(_ request: HTTPRequest, names: [String]) throws(ServeControlError) -> [String: String] {
        var found: [String: String] = [:]
        for item in request.query {
            guard names.contains(item.name) else {
                let takes = names.isEmpty ? "takes no query parameter" : "takes \(names.map { "?\($0)=" }.joined(separator: ", "))"
                throw ServeControlError("unknown query parameter \("\"" + ControlCharacters.escaped(item.name) + "\""); \(request.method) \(request.path) \(takes)")
            }
            guard found[item.name] == nil else { throw ServeControlError("query parameter \(item.name) is given twice; give it once") }
            found[item.name] = item.value
        }
        return found
    }

    func requiredText(_ name: String) throws(ServeControlError) -> String {
        guard let value = try optionalText(name) else { throw ServeControlError("\(name) is required") }
        return value
    }

    func optionalText(_ name: String) throws(ServeControlError) -> String? {
        switch fields[name] {
        case nil, .null?: return nil
        case .string(let text)? where !text.isEmpty: return text
        case .string?, .bool?, .number?, .array?, .object?: throw ServeControlError("\(name) must be a non-empty string")
        }
    }

    /// A whole number of at least 1 (a fault's `times`).
    func optionalCount(_ name: String) throws(ServeControlError) -> Int? {
        switch fields[name] {
        case nil, .null?: return nil
        case .number(let text)? where Int(text).map({ (1...1_000_000).contains($0) }) == true: return Int(text)
        case .number?, .string?, .bool?, .array?, .object?: throw ServeControlError("\(name) must be a whole number from 1 to 1000000")
        }
    }

    /// Seconds, from a spec duration ("61m") or a whole number of seconds.
    func duration(_ name: String) throws(ServeControlError) -> Int {
        guard let seconds = try optionalDuration(name) else { throw ServeControlError("\(name) is required (e.g. \"61m\" or 3660)") }
        return seconds
    }

    func optionalDuration(_ name: String) throws(ServeControlError) -> Int? {
        let refusal = ServeControlError("\(name) must be a duration such as \"61m\", \"1h30m\", \"90s\" or a whole number of seconds (at most ten years)")
        switch fields[name] {
        case nil, .null?: return nil
        case .number(let text)?:
            // Compared without abs: abs(Int.min) traps, and a hostile client may send it.
            guard let seconds = Int(text), seconds >= -Self.maxSeconds, seconds <= Self.maxSeconds else { throw refusal }
            return seconds
        case .string(let text)?:
            guard let seconds = SpecDuration.seconds(text), seconds >= -Self.maxSeconds, seconds <= Self.maxSeconds else { throw refusal }
            return seconds
        case .bool?, .array?, .object?: throw refusal
        }
    }
}

/// The control API's error answers.
enum ServeControlAnswer {
    static func failure(_ status: Int, _ reason: String) -> HTTPResponse {
        .json(status, ["error": HTTPResponse.reasonPhrase(for: status), "reason": reason])
    }
}
