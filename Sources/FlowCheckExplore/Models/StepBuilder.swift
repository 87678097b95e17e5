import FlowCheckSpec

/// Small builders for the steps models write, so each model reads as its predictions.
enum StepBuilder {
    /// An app step: `{"app": name, "with": {...}, "expect": {...}}`.
    static func app(_ name: String, with arguments: [(String, String)] = [], note: String? = nil, expect: [(String, SpecJSON)]) -> SpecJSON {
        var members: [(String, SpecJSON)] = [("app", .string(name))]
        if !arguments.isEmpty { members.append(("with", .object(arguments.map { ($0.0, .string($0.1)) }))) }
        if let note { members.append(("note", .string(note))) }
        if !expect.isEmpty { members.append(("expect", .object(expect))) }
        return .object(members)
    }

    /// A request the server must have seen.
    static func request(_ method: String, _ path: String, status: Int, _ extra: [(String, SpecJSON)] = []) -> SpecJSON {
        .object([("method", .string(method)), ("path", .string(path))] + extra + [("status", .int(status))])
    }

    /// `"error": {"kind": K}`, or `"outcome": "error"` when the kind is not predicted.
    static func error(_ kind: String?) -> (String, SpecJSON) {
        guard let kind else { return ("outcome", "error") }
        return ("error", .object([("kind", .string(kind))]))
    }

    /// A matcher that keeps the value under `name`, optionally differing from an earlier one.
    static func capture(_ name: String, notEquals previous: String? = nil) -> SpecJSON {
        guard let previous else { return .object([("present", true), ("capture", .string(name))]) }
        return .object([("notEquals", .string("${\(previous)}")), ("capture", .string(name))])
    }

    /// Why a step after a store crash may find the crashed write's temporary file: a store may
    /// remove it when next opened, written or emptied (the written CLV-FULL-17's and
    /// MLT-STORE-CRASH's reason).
    static let leftoverAllowance: SpecJSON = .array([.object([
        ("invariant", "INV-STORE"),
        ("why", "the simulated crash leaves the killed write's temporary file on purpose; a store may remove it when it is next opened, written or emptied: the generated flow does not judge it"),
    ])])

    /// `step` with the allowances of `allow` (an array) added to any it has.
    static func allowing(_ allow: SpecJSON, in step: SpecJSON) -> SpecJSON {
        guard case .object(let members) = step, case .array(let added) = allow else { return step }
        guard let index = members.firstIndex(where: { $0.0 == "allow" }) else { return .object(members + [("allow", allow)]) }
        var merged = members
        if case .array(let existing) = members[index].1 { merged[index].1 = .array(existing + added) }
        return .object(merged)
    }

    /// A `"browser": "tamper"` step rewriting the captured `what` (the redirect, the return
    /// URL) as the derived variants' `tamper` does.
    static func tamper(_ tamper: RedirectTamperCatalog.Tamper, rewriting what: String) -> SpecJSON {
        var with: [(String, SpecJSON)] = tamper.arguments.map { ($0.name, .string($0.value)) }
        for transform in tamper.transforms {
            var members: [(String, SpecJSON)] = [("transform", .string(transform.kind.rawValue))]
            if let value = transform.value { members.append(("value", .string(value))) }
            with.append((transform.parameter, .object(members)))
        }
        return .object([("browser", "tamper"), ("with", .object(with)), ("note", .string("\(what) rewritten: \(tamper.name) (\(tamper.rule))."))])
    }

    /// `{"fault": {"kind": "hold", "path": path, "times": 1}}`: the next request to `path` is
    /// held on the server until released.
    static func hold(_ path: String) -> SpecJSON {
        .object([("fault", .object([("kind", "hold"), ("path", .string(path)), ("times", .int(1))]))])
    }

    /// A call held in flight while the session ends (the `interleave` family's
    /// DRV-NO-RESURRECTION): the server holds the call's first request to `path`, the call
    /// starts in the background, `meanwhile` happens, the app calls `end`, the request is
    /// answered, and the call ends. Only the store is predicted: empty from the end on.
    static func held(_ app: String, with arguments: [(String, String)] = [], path: String, meanwhile: [SpecJSON] = [], end: String) -> [SpecJSON] {
        var started: [(String, SpecJSON)] = [("app", .string(app))]
        if !arguments.isEmpty { started.append(("with", .object(arguments.map { ($0.0, .string($0.1)) }))) }
        started.append(("async", "held"))
        started.append(("note", .string("The call starts; the step goes on once the server holds its \(path) (or the call ended without one).")))
        return [
            hold(path),
            .object(started),
        ] + meanwhile + [
            Self.app(end, note: "The user ends the session while the request is in flight.", expect: [("outcome", "any"), ("storeEmpty", true)]),
            .object([("clearFaults", true)]),
            .object([
                ("await", "held"),
                ("note", .string("The held request is answered after the \(end): nothing it brings back is stored (DRV-NO-RESURRECTION).")),
                ("expect", .object([("outcome", "any"), ("storeEmpty", true)])),
            ]),
        ]
    }
}
