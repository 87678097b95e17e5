import Foundation
import FlowCheckFakeServer
import FlowCheckProviders
import FlowCheckSpec
import FlowCheckTestSupport

/// The other side of one flow: the provider's fake behind a real loopback server. `flowcheck
/// serve` (FlowCheckServe) runs its fakes in the same worlds, so the package sees it.
package final class FakeWorld: Sendable {
    package let server: FakeProviderServer
    private let persona: FakePersona

    /// Builds the fake for the spec's provider from its fixture and starts it.
    /// - Throws: when the provider is not registered or the server cannot listen.
    convenience init(spec: FlowSpec, providers: [any ProviderKit], clock: ManualClock, onHold: (@Sendable (Int) -> Void)? = nil, onHoldEnd: (@Sendable (Int) -> Void)? = nil) throws {
        let kit = try providers.registeredKit(for: spec.provider)
        try self.init(kit: kit, fixture: spec.fixture, now: { clock.now }, advanceClock: { clock.advance(by: $0) }, judgeStalls: true, onHold: onHold, onHoldEnd: onHoldEnd)
    }

    /// How far the virtual clock moves while the server stalls a request (a `stall` fault's
    /// `clockAdvance`), so the SDK's timeout on that clock fires with no real waiting.
    private let stallAdvance: Locked<TimeInterval?>
    /// Stalls the client was still waiting on after the clock passed its deadline.
    private let overdueStalls: Locked<[OverdueStall]>

    /// The stalls found overdue since the last call (see ``StallJudge``), oldest first.
    package func takeOverdueStalls() -> [OverdueStall] {
        overdueStalls.withLock { found in defer { found = [] }; return found }
    }

    /// Builds the kit's fake over a fixture and starts it.
    /// - Parameters:
    ///   - now: the fake's time (a flow's virtual clock; the wall clock for `flowcheck serve`).
    ///   - port: 0 for an ephemeral port.
    ///   - limits, recording: the server's bounds (a flow's defaults: no cap, everything kept).
    ///   - observer: told of every exchange.
    ///   - address: where the server binds (loopback unless `flowcheck serve --host`).
    ///   - front: wraps the persona before it is served (`flowcheck serve` answers `GET /`).
    ///   - judgeStalls: watch each stall whose `clockAdvance` moved the clock: a client still
    ///     waiting ``StallJudge/grace`` later (stretched on a busy machine) is overdue
    ///     (``takeOverdueStalls()``) and the stall is ended. A flow's world does;
    ///     `flowcheck serve`, on the wall clock, does not.
    package init(kit: any ProviderKit, fixture: any ProviderFixture, now: @escaping @Sendable () -> Date, advanceClock: (@Sendable (TimeInterval) -> Void)? = nil, judgeStalls: Bool = false, port: Int = 0, address: BindAddress = .loopback, front: ((any FakeProvider) -> any FakeProvider)? = nil, limits: HTTPServerLimits = .init(), recording: RecordingBounds = .unbounded, observer: (@Sendable (RecordedExchange) -> Void)? = nil, onHold: (@Sendable (Int) -> Void)? = nil, onHoldEnd: (@Sendable (Int) -> Void)? = nil) throws {
        let advance = Locked<TimeInterval?>(nil)
        stallAdvance = advance
        let overdue = Locked<[OverdueStall]>([])
        // Read here, in the flow's task: the stall judge's probe runs at the flow's priority.
        let priority = Task.currentPriority
        overdueStalls = overdue
        let stallStarted: @Sendable (StallHandle) -> Void = { handle in
            guard let seconds = advance.withLock({ $0 }) else { return }
            // Told on the fakes' shared loop thread, which must never wait: moving the clock
            // writes to a driver's stdin, which a driver that stops reading fills. A thread of
            // its own waits instead (else every flow's fakes would).
            let move: @Sendable () -> Void = {
                advanceClock?(seconds)
                guard judgeStalls else { return }
                StallJudge.watch(handle, priority: priority) { waited in
                    overdue.withLock { $0.append(OverdueStall(method: handle.request.method, path: handle.request.path, clockAdvance: seconds, waited: waited)) }
                }
            }
            if !ConnectionThread.start(move) { move() }
        }
        persona = try kit.makeFake(for: fixture)
        server = FakeProviderServer(provider: front?(persona.provider) ?? persona.provider, now: now, limits: limits, recording: recording, observer: observer, stallStarted: stallStarted, holdObserver: { _, number in onHold?(number) }, holdEndObserver: onHoldEnd)
        try server.start(port: port, address: address)
    }

    /// Runs a server-side operation named in a spec.
    package func perform(_ operation: String) throws {
        try persona.perform(operation)
    }
    /// Tells the server to misbehave as a spec asks.
    package func inject(_ fault: FaultSpec) throws {
        guard let kind = FaultKind(rawValue: fault.kind) else { throw DriverError("unknown fault \(fault.kind)", party: .spec) }
        if let seconds = fault.clockAdvance { stallAdvance.withLock { $0 = TimeInterval(seconds) } }
        server.inject(Fault(kind: kind, path: fault.path, times: fault.times))
    }

    /// Ends every fault; the server must be listening again afterwards.
    package func clearFaults() throws {
        stallAdvance.withLock { $0 = nil }
        server.clearFaults()
        if let error = server.listenerError {
            throw DriverError("the fake server could not listen again after its faults were cleared: \(error)", party: .harness)
        }
    }

    package func stop() {
        server.stop()
    }
}

extension Array where Element == any ProviderKit {
    /// The kit for `id`, or a harness error naming the unregistered provider.
    package func registeredKit(for id: Provider) throws -> any ProviderKit {
        guard let kit = kit(for: id) else { throw DriverError("no provider \"\(id.rawValue)\" is registered (the spec names it; the run's providers do not have it)", party: .spec) }
        return kit
    }
}
