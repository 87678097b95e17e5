/// Who broke, when a flow could not be judged: every harness error names one, so a reader
/// knows whether to look at the SDK, the driver, the spec or FlowCheck itself.
public enum HarnessParty: String, Sendable, CaseIterable, Equatable {
    /// The SDK under test: a call that never returned or never ended, a page it never opened.
    case sdk
    /// A driver in process (a Swift ``FlowDriver``) that could not go on: it threw.
    case driver
    /// A driver process that broke the driver protocol (`docs/protocol.md`): it did
    /// not start, did not greet, missed a deadline, died, or sent a message out of order.
    case driverProtocol = "driver-protocol"
    /// The spec asks for something the run cannot do (a provider that is not registered, a
    /// tamper with nothing to tamper with).
    case spec
    /// FlowCheck itself: its fake server, its browser, its own HTTP client, its files.
    case harness

    /// The party as messages name it: `SDK`, `driver`, `driver protocol`, `spec`, `harness`.
    public var label: String {
        switch self {
        case .sdk: return "SDK"
        case .driver: return "driver"
        case .driverProtocol: return "driver protocol"
        case .spec: return "spec"
        case .harness: return "harness"
        }
    }
}
