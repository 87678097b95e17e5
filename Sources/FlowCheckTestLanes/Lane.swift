import Foundation
import Testing

/// The two lanes of FlowCheck's own test suite.
///
/// - **fast**: pure logic, socket-free fakes (`ResponderTransport`, `FakeConnection`) and table
///   tests. No socket, no child process, no built binary. `.ci/run` runs it in a network
///   namespace with no interface up, so a socket that slips in fails at once.
/// - **integration**: real loopback sockets, child processes (drivers, the built `flowcheck`),
///   explore and load. Every suite of this lane carries the ``Trait/integration`` trait.
///
/// `swift test` alone runs both. `FLOWCHECK_LANE=fast swift test` runs the fast lane (the
/// integration suites are skipped), `FLOWCHECK_LANE=integration swift test` the integration
/// lane (every other suite is skipped).
public enum Lane: String, Sendable, CaseIterable {
    case fast
    case integration

    /// The lanes this run includes, from `FLOWCHECK_LANE` (`fast`, `integration`; unset or
    /// empty: both); nil for a value that names no lane.
    public static let selected: Set<Lane>? = {
        let value = ProcessInfo.processInfo.environment["FLOWCHECK_LANE"] ?? ""
        if value.isEmpty { return Set(allCases) }
        return Lane(rawValue: value).map { [$0] }
    }()

    /// Whether this run includes `lane`. An unknown `FLOWCHECK_LANE` runs every lane, and
    /// `EveryTestHasATimeLimitTests` fails it by name: a typo must not make a green run of nothing.
    public static func runs(_ lane: Lane) -> Bool {
        selected?.contains(lane) ?? true
    }

    /// The value of `FLOWCHECK_LANE`, for a message.
    public static var requested: String {
        ProcessInfo.processInfo.environment["FLOWCHECK_LANE"] ?? ""
    }

    /// Why a suite of `lane` does not run now.
    static func skipReason(_ lane: Lane) -> Comment {
        let value = ProcessInfo.processInfo.environment["FLOWCHECK_LANE"] ?? ""
        if selected == nil { return "FLOWCHECK_LANE=\(value) names no lane (fast or integration)" }
        return "the \(lane.rawValue) lane, not in this run (FLOWCHECK_LANE=\(value))"
    }
}

extension Tag {
    /// A suite of the integration lane (sockets, child processes, binaries, explore, load).
    @Tag public static var integration: Self
}

extension Trait where Self == ConditionTrait {
    /// Puts a suite in the integration lane: it runs unless `FLOWCHECK_LANE=fast`.
    public static var integration: Self {
        .enabled(if: Lane.runs(.integration), Lane.skipReason(.integration))
    }

    /// Puts a suite in the fast lane: it runs unless `FLOWCHECK_LANE=integration`.
    public static var fast: Self {
        .enabled(if: Lane.runs(.fast), Lane.skipReason(.fast))
    }
}
