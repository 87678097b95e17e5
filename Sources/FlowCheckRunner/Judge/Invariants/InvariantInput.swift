import FlowCheckSpec

/// What an invariant reads beyond the step's own requests, pages and outcome. Each costs the
/// step loop a question to the driver or a measurement of the disk, so it gathers an input
/// only when an enabled invariant declares it (``Invariant/inputs``).
enum InvariantInput: Hashable, Sendable {
    /// The SDK's stored token, read back through the driver after the step.
    case storeContents
    /// The token store's files, measured by the harness where the driver says they are.
    case storeFiles
    /// Every request the SDK sent, as the driver saw it leave.
    case sentRequests
}

extension Invariant {
    /// What the invariant reads beyond the step itself. No default: a new invariant says what
    /// it needs, or it is judged without it.
    var inputs: Set<InvariantInput> {
        switch self {
        // Whether a transient failure cost the stored token.
        case .keep: return [.storeContents]
        // The store's folder and files: modes, leftovers, rewrites in place.
        case .store: return [.storeFiles]
        // Credentials sent to no origin of the provider's never reach the fake.
        case .origin: return [.sentRequests]
        case .leak, .expired, .secretWire, .dismiss, .random, .retryAfter: return []
        }
    }
}
