/// The control API's endpoints (docs/serve.md, "The control API").
enum ServeControlRoute: CaseIterable {
    case index
    case readClock
    case advanceClock
    case readFaults
    case injectFault
    case clearFaults
    case serverOperation
    case readExchanges

    var method: String {
        switch self {
        case .index, .readClock, .readFaults, .readExchanges: return "GET"
        case .advanceClock, .injectFault, .serverOperation: return "POST"
        case .clearFaults: return "DELETE"
        }
    }

    var path: String {
        switch self {
        case .index: return "/"
        case .readClock, .advanceClock: return "/clock"
        case .readFaults, .injectFault, .clearFaults: return "/faults"
        case .serverOperation: return "/operations"
        case .readExchanges: return "/exchanges"
        }
    }

    var summary: String {
        switch self {
        case .index: return "this list"
        case .readClock: return "the virtual clock every fake reads: {now, unix}"
        case .advanceClock: return #"moves the clock forward: {"advance": "61m"} (a spec duration) or {"advance": 3660} (seconds)"#
        case .readFaults: return "faults still armed, by provider (?provider=P for one)"
        case .injectFault: return #"arms a fault as a spec's fault step does: {"provider", "kind", "path"?, "times"?, "clockAdvance"? (stall only)}"#
        case .clearFaults: return "ends every fault (?provider=P for one provider's)"
        case .serverOperation: return #"a provider server operation as a spec's server step: {"provider", "operation": "revokeTokens"}"#
        case .readExchanges: return "recorded exchanges, redacted as the log shows them (?provider=P, ?since=N: those after number N)"
        }
    }

    /// The keys a JSON body may have (none: the route takes no body).
    var bodyKeys: [String] {
        switch self {
        case .advanceClock: return ["advance"]
        case .injectFault: return ["provider", "kind", "path", "times", "clockAdvance"]
        case .serverOperation: return ["provider", "operation"]
        case .index, .readClock, .readFaults, .clearFaults, .readExchanges: return []
        }
    }

    /// The query parameters it takes.
    var queryNames: [String] {
        switch self {
        case .readFaults, .clearFaults: return ["provider"]
        case .readExchanges: return ["provider", "since"]
        case .index, .readClock, .advanceClock, .injectFault, .serverOperation: return []
        }
    }

    /// What a request names.
    enum Match {
        case found(ServeControlRoute)
        case unknownPath
        case wrongMethod(allowed: [String])
    }

    static func match(method: String, path: String) -> Match {
        let onPath = allCases.filter { $0.path == path }
        guard !onPath.isEmpty else { return .unknownPath }
        guard let route = onPath.first(where: { $0.method == method }) else { return .wrongMethod(allowed: onPath.map(\.method)) }
        return .found(route)
    }
}
