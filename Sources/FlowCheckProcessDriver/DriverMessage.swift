import FlowCheckSpec
import Foundation

/// What a driver says in its `hello`: who it is and what it can do.
public struct DriverHello: Sendable, Equatable {
    /// The driver's capabilities (`capabilities` in `hello`).
    public enum Capability: String, Sendable, CaseIterable {
        /// The SDK reads time from `start` and `clock`.
        case virtualClock
        /// The token store is files under the storage folder: `storeLocation` may be asked.
        case fileStore
        /// `crashStore` may be asked.
        case storeCrash
        /// The SDK opens logins in the device's own browser, which no app can close: where the
        /// provider's documents allow that (Clover, Clever), dismissal is not judged.
        case externalBrowser
    }

    public var name: String
    public var version: String
    /// Every provider the driver speaks, with the actions it performs for it.
    public var providers: [String: [String]]
    public var capabilities: Set<Capability>

    public init(name: String, version: String, providers: [String: [String]], capabilities: Set<Capability>) {
        self.name = name
        self.version = version
        self.providers = providers
        self.capabilities = capabilities
    }
}

/// A message from the driver (its stdout), checked against the protocol's schema
/// (`Tests/Drivers/protocol.schema.json`, `$defs/fromDriver`): every required key, no other
/// key, every value of its type.
enum DriverMessage: Sendable, Equatable {
    case hello(DriverHello)
    case ready
    case ok(id: Int, result: [String: String])
    case error(id: Int, kind: String, message: String)
    case crashed(id: Int, message: String)
    case unsupported(id: Int, message: String)
    case store(id: Int, fields: [String: String])
    case storeLocation(id: Int, directory: String, files: [String])
    case crashStore(id: Int, armed: Bool, reason: String?)
    case browserOpen(String)
    case browserDismiss
    /// The SDK chose to wait until this instant of the flow's clock (a `Retry-After`, a backoff).
    case wait(Date)
    case fatal(String)

    /// The protocol version this runner speaks.
    static let protocolVersion = 1

    /// The message types a driver may send, as the schema names them.
    static let types = ["hello", "ready", "ok", "error", "crashed", "unsupported", "store", "storeLocation", "crashStore", "browserOpen", "browserDismiss", "wait", "fatal"]

    /// The id it answers, for answers.
    var answers: Int? {
        switch self {
        case .ok(let id, _), .error(let id, _, _), .crashed(let id, _), .unsupported(let id, _), .store(let id, _), .storeLocation(let id, _, _), .crashStore(let id, _, _):
            return id
        case .hello, .ready, .browserOpen, .browserDismiss, .wait, .fatal:
            return nil
        }
    }

    /// Why a line is not a message, in words for the harness error.
    struct Invalid: Error, Equatable {
        var reason: String
    }

    /// Reads one line of the driver's stdout.
    static func parse(_ line: String) throws(Invalid) -> DriverMessage {
        let node: JSONNode
        do {
            node = try JSONReader.parse(line)
        } catch {
            throw Invalid(reason: "not JSON (\(error.message))")
        }
        guard let members = node.members else { throw Invalid(reason: "not a JSON object") }
        if let repeated = Self.repeatedKey(node) { throw Invalid(reason: "the key \"\(repeated)\" appears twice in one object") }
        var object = Fields(members: members)
        let type = try object.string("type")
        let message: DriverMessage
        switch type {
        case "hello":
            let version = try object.integer("protocol")
            guard version == protocolVersion else {
                throw Invalid(reason: "the driver speaks protocol \(version); this runner speaks \(protocolVersion)")
            }
            var driver = Fields(members: try object.object("driver"))
            let name = try driver.string("name", nonEmpty: true)
            let driverVersion = try driver.string("version", nonEmpty: true)
            try driver.finish(in: "driver")
            var providers: [String: [String]] = [:]
            for member in try object.object("providers") {
                guard case .array(let items) = member.value.value else { throw Invalid(reason: "providers.\(member.key) is \(member.value.typeName), not an array of action names") }
                guard providers[member.key] == nil else { throw Invalid(reason: "providers names \(member.key) twice") }
                let actions = try items.map { item throws(Invalid) -> String in
                    guard case .string(let action) = item.value, !action.isEmpty else { throw Invalid(reason: "providers.\(member.key) has \(item.typeName) where an action name belongs") }
                    return action
                }
                guard Set(actions).count == actions.count else { throw Invalid(reason: "providers.\(member.key) lists an action twice") }
                providers[member.key] = actions
            }
            guard !providers.isEmpty else { throw Invalid(reason: "providers is empty: name at least one provider") }
            var capabilities: Set<DriverHello.Capability> = []
            let names = try object.strings("capabilities")
            guard Set(names).count == names.count else { throw Invalid(reason: "capabilities lists one twice") }
            for name in names {
                guard let capability = DriverHello.Capability(rawValue: name) else {
                    throw Invalid(reason: "unknown capability \"\(name)\" (known: \(DriverHello.Capability.allCases.map(\.rawValue).joined(separator: ", ")))")
                }
                capabilities.insert(capability)
            }
            message = .hello(DriverHello(name: name, version: driverVersion, providers: providers, capabilities: capabilities))
        case "ready":
            message = .ready
        case "ok":
            message = .ok(id: try object.id(), result: try object.stringMap("result"))
        case "error":
            let id = try object.id()
            let kind = try object.string("kind")
            guard Vocabulary.errorKinds.contains(kind) else {
                throw Invalid(reason: "error kind \"\(kind)\" is not one of \(Vocabulary.errorKinds.joined(separator: ", "))")
            }
            message = .error(id: id, kind: kind, message: try object.string("message"))
        case "crashed":
            message = .crashed(id: try object.id(), message: try object.string("message"))
        case "unsupported":
            message = .unsupported(id: try object.id(), message: try object.string("message"))
        case "store":
            message = .store(id: try object.id(), fields: try object.stringMap("fields"))
        case "storeLocation":
            let id = try object.id()
            let directory = try object.string("directory", nonEmpty: true)
            let files = try object.strings("files")
            guard !files.contains("") else { throw Invalid(reason: "\"files\" holds an empty name") }
            message = .storeLocation(id: id, directory: directory, files: files)
        case "crashStore":
            let id = try object.id()
            let armed = try object.bool("armed")
            let reason = try object.optionalString("reason")
            if !armed && reason == nil { throw Invalid(reason: "crashStore with armed false needs a reason") }
            if reason?.isEmpty == true { throw Invalid(reason: "crashStore's reason is empty") }
            message = .crashStore(id: id, armed: armed, reason: reason)
        case "browserOpen":
            message = .browserOpen(try object.string("url", nonEmpty: true))
        case "browserDismiss":
            message = .browserDismiss
        case "wait":
            message = .wait(Date(timeIntervalSince1970: try object.time("until")))
        case "fatal":
            message = .fatal(try object.string("message"))
        default:
            throw Invalid(reason: "unknown message type \"\(type)\" (a driver sends \(types.joined(separator: ", ")))")
        }
        try object.finish(in: type)
        return message
    }

    /// A key that appears twice in one object, anywhere in the message: JSON leaves its meaning
    /// open (RFC 8259 §4), so a message with one means nothing certain.
    private static func repeatedKey(_ node: JSONNode) -> String? {
        switch node.value {
        case .object(let members):
            // By code points, as JSON compares keys: "\u00e9" and "e\u0301" are two keys.
            var seen = Set<[Unicode.Scalar]>()
            for member in members {
                if !seen.insert(Array(member.key.unicodeScalars)).inserted { return member.key }
                if let inner = repeatedKey(member.value) { return inner }
            }
            return nil
        case .array(let items):
            return items.lazy.compactMap(repeatedKey).first
        case .null, .bool, .number, .string:
            return nil
        }
    }

    /// An object's members, taken one by one; what is left at the end is refused.
    private struct Fields {
        var members: [JSONNode.Member]

        mutating func take(_ key: String) throws(Invalid) -> JSONNode {
            guard let index = members.firstIndex(where: { $0.key == key }) else { throw Invalid(reason: "\"\(key)\" is missing") }
            return members.remove(at: index).value
        }

        mutating func string(_ key: String, nonEmpty: Bool = false) throws(Invalid) -> String {
            let node = try take(key)
            guard case .string(let value) = node.value else { throw Invalid(reason: "\"\(key)\" is \(node.typeName), not a string") }
            if nonEmpty && value.isEmpty { throw Invalid(reason: "\"\(key)\" is empty") }
            return value
        }

        mutating func optionalString(_ key: String) throws(Invalid) -> String? {
            guard members.contains(where: { $0.key == key }) else { return nil }
            return try string(key)
        }

        mutating func integer(_ key: String) throws(Invalid) -> Int {
            let node = try take(key)
            // JSON Schema's integer: any number with no fraction (1, 1.0, 1e0).
            guard case .number(let text) = node.value, let number = Double(text), number == number.rounded(), abs(number) < 1e15 else {
                throw Invalid(reason: "\"\(key)\" is \(node.typeName), not an integer")
            }
            return Int(number)
        }

        /// Unix seconds: any finite, non-negative JSON number.
        mutating func time(_ key: String) throws(Invalid) -> TimeInterval {
            let node = try take(key)
            guard case .number(let text) = node.value, let number = Double(text), number.isFinite, number >= 0, number < 1e12 else {
                throw Invalid(reason: "\"\(key)\" is \(node.typeName), not a time in Unix seconds")
            }
            return number
        }

        mutating func id() throws(Invalid) -> Int {
            let value = try integer("id")
            guard value >= 1 else { throw Invalid(reason: "\"id\" is \(value), not an id the runner gives (1 or more)") }
            return value
        }

        mutating func bool(_ key: String) throws(Invalid) -> Bool {
            let node = try take(key)
            guard case .bool(let value) = node.value else { throw Invalid(reason: "\"\(key)\" is \(node.typeName), not true or false") }
            return value
        }

        mutating func object(_ key: String) throws(Invalid) -> [JSONNode.Member] {
            let node = try take(key)
            guard let members = node.members else { throw Invalid(reason: "\"\(key)\" is \(node.typeName), not an object") }
            return members
        }

        mutating func strings(_ key: String) throws(Invalid) -> [String] {
            let node = try take(key)
            guard case .array(let items) = node.value else { throw Invalid(reason: "\"\(key)\" is \(node.typeName), not an array of strings") }
            return try items.map { item throws(Invalid) -> String in
                guard case .string(let value) = item.value else { throw Invalid(reason: "\"\(key)\" holds \(item.typeName), not a string") }
                return value
            }
        }

        mutating func stringMap(_ key: String) throws(Invalid) -> [String: String] {
            var map: [String: String] = [:]
            for member in try object(key) {
                guard case .string(let value) = member.value.value else {
                    throw Invalid(reason: "\"\(key).\(member.key)\" is \(member.value.typeName), not a string (every value is a string)")
                }
                map[member.key] = value
            }
            return map
        }

        func finish(in type: String) throws(Invalid) {
            if let extra = members.first { throw Invalid(reason: "\(type) has an unknown key \"\(extra.key)\"") }
        }
    }
}

/// A message to the driver (its stdin), written as the schema's `$defs/toDriver` says.
enum RunnerMessage: Sendable, Equatable {
    case start(flow: String, provider: String, baseURL: String, baseURLs: [String: String], storageDirectory: String, now: Date)
    case call(id: Int, action: String, arguments: [String: String])
    /// The clock's time; `refused`: the instant a driver's `wait` asked for, which the flow did
    /// not let pass (the clock stayed at `now`).
    case clock(Date, refused: Date? = nil)
    case store(id: Int)
    case storeLocation(id: Int)
    case crashStore(id: Int, point: String)
    case stop

    /// The message types the runner sends, as the schema names them.
    static let types = ["start", "call", "clock", "store", "storeLocation", "crashStore", "stop"]

    /// One line of JSON, keys in a fixed order.
    var line: String {
        switch self {
        case .start(let flow, let provider, let baseURL, let baseURLs, let storageDirectory, let now):
            return #"{"type":"start","flow":\#(Self.quote(flow)),"provider":\#(Self.quote(provider)),"baseURL":\#(Self.quote(baseURL)),"baseURLs":\#(Self.object(baseURLs)),"storageDirectory":\#(Self.quote(storageDirectory)),"now":\#(Self.time(now))}"#
        case .call(let id, let action, let arguments):
            return #"{"type":"call","id":\#(id),"action":\#(Self.quote(action)),"arguments":\#(Self.object(arguments))}"#
        case .clock(let now, nil):
            return #"{"type":"clock","now":\#(Self.time(now))}"#
        case .clock(let now, let refused?):
            return #"{"type":"clock","now":\#(Self.time(now)),"refused":\#(Self.time(refused))}"#
        case .store(let id):
            return #"{"type":"store","id":\#(id)}"#
        case .storeLocation(let id):
            return #"{"type":"storeLocation","id":\#(id)}"#
        case .crashStore(let id, let point):
            return #"{"type":"crashStore","id":\#(id),"point":\#(Self.quote(point))}"#
        case .stop:
            return #"{"type":"stop"}"#
        }
    }

    private static func quote(_ text: String) -> String {
        "\"" + SpecText.escaped(text) + "\""
    }

    private static func object(_ map: [String: String]) -> String {
        "{" + map.sorted { $0.key < $1.key }.map { quote($0.key) + ":" + quote($0.value) }.joined(separator: ",") + "}"
    }

    /// Unix seconds: whole seconds as an integer, a fraction only when there is one.
    private static func time(_ date: Date) -> String {
        let seconds = date.timeIntervalSince1970
        return seconds == seconds.rounded() ? String(Int64(seconds)) : String(seconds)
    }
}
