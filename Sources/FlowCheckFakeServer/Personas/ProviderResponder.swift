import Foundation

/// The recording + fault + provider chain behind a ``FakeProviderServer``.
///
/// Fault selection, the provider call and recording happen under one lock so the recording
/// order is the handling order, and the exchange is recorded before the server writes the
/// response: a client that has seen a response can rely on finding it in the recording.
///
/// Over a socket the chain is asked for a plan (``TransportAwareResponder``), so transport
/// faults can reset or stall the connection; socket-free callers use `respond(to:)` and get
/// the planned response, recorded the same way, without anything being held.
final class ProviderResponder: TransportAwareResponder {
    private struct State {
        var faults: [Fault] = []
        /// Reshapes (``FaultKind/isReshape``), apart: they change whatever answers, and never
        /// stand in the way of a fault.
        var reshapes: [Fault] = []
        var exchanges: [RecordedExchange] = []
        /// Stalls that may still hold a connection; `clearFaults()` releases them.
        var stalls: [StallGate] = []
        /// The requests a `hold` fault holds now, by hold number (``releaseHold(_:)``): the
        /// numbers count every hold taken; one whose connection is done is forgotten at the
        /// next hold, so a server held against for weeks keeps only those still open.
        var held: [Int: StallGate] = [:]
        var holdsTaken = 0

        /// The earliest injected fault matching `request`, counted down (and dropped when
        /// spent) as it is taken.
        mutating func takeFault(for request: HTTPRequest) -> FaultKind? {
            guard let index = faults.firstIndex(where: { $0.matches(request) }) else { return nil }
            let fault = faults[index]
            if let times = fault.times {
                if times <= 1 {
                    faults.remove(at: index)
                } else {
                    faults[index].times = times - 1
                }
            }
            return fault.kind
        }

        /// `answer` reshaped by every reshape matching `request`, each counted down as taken.
        mutating func reshaped(_ answer: HTTPResponse, for request: HTTPRequest, at time: Date) -> HTTPResponse {
            var answer = answer
            for index in reshapes.indices where reshapes[index].matches(request) {
                answer = reshapes[index].kind.reshape(answer, at: time)
                if let times = reshapes[index].times { reshapes[index].times = times - 1 }
            }
            reshapes.removeAll { ($0.times ?? 1) <= 0 }
            return answer
        }

        var bounds = RecordingBounds.unbounded
        /// Exchanges recorded since the start, kept or not: the next one's index.
        var recorded = 0

        mutating func record(_ request: HTTPRequest, _ response: HTTPResponse, fault: FaultKind?, at time: Date, origin: String) -> RecordedExchange {
            let exchange = bounds.cut(RecordedExchange(index: recorded, time: time, request: request, response: response, fault: fault?.rawValue, origin: origin))
            recorded += 1
            exchanges.append(exchange)
            // Trimmed in batches, so keeping the last N costs O(1) per exchange on average.
            if let keep = bounds.keepLast, exchanges.count >= 2 * keep + 1 {
                exchanges.removeFirst(exchanges.count - keep)
            }
            return exchange
        }

        /// The exchanges the bounds keep.
        var kept: [RecordedExchange] {
            guard let keep = bounds.keepLast, exchanges.count > keep else { return exchanges }
            return Array(exchanges.suffix(keep))
        }
    }

    private let provider: any FakeProvider
    private let now: @Sendable () -> Date
    private let state = Locked(State())
    /// Told of every exchange once it is recorded (`flowcheck serve` logs them).
    private let observer: (@Sendable (RecordedExchange) -> Void)?
    /// Told of every request that starts stalling on a connection.
    private let stallObserver: (@Sendable (HTTPRequest) -> Void)?
    /// Told of every stall that starts, with a handle on it.
    private let stallStarted: (@Sendable (StallHandle) -> Void)?
    /// Told of every request that a `hold` fault starts holding, with its number (0 for the
    /// first held, then 1, ...).
    private let holdObserver: (@Sendable (HTTPRequest, Int) -> Void)?
    /// Told, with its number, each time a held request is done with: answered, or its
    /// connection ended.
    private let holdEndObserver: (@Sendable (Int) -> Void)?

    init(
        provider: any FakeProvider,
        now: @escaping @Sendable () -> Date,
        recording: RecordingBounds = .unbounded,
        observer: (@Sendable (RecordedExchange) -> Void)? = nil,
        stallObserver: (@Sendable (HTTPRequest) -> Void)? = nil,
        stallStarted: (@Sendable (StallHandle) -> Void)? = nil,
        holdObserver: (@Sendable (HTTPRequest, Int) -> Void)? = nil,
        holdEndObserver: (@Sendable (Int) -> Void)? = nil
    ) {
        self.stallStarted = stallStarted
        self.holdEndObserver = holdEndObserver
        self.provider = provider
        self.now = now
        self.observer = observer
        self.stallObserver = stallObserver
        self.holdObserver = holdObserver
        state.withLock { $0.bounds = recording }
    }

    /// Whether a `hold` fault is armed with requests left to hold.
    var holdArmed: Bool {
        state.withLock { state in state.faults.contains { $0.kind == .hold && ($0.times ?? 1) > 0 } }
    }

    var exchanges: [RecordedExchange] {
        state.withLock { $0.kept }
    }

    var faults: [Fault] {
        state.withLock { $0.faults + $0.reshapes }
    }

    /// Adds an HTTP-level fault; the earliest injected matching fault wins. A reshape is kept
    /// apart and applied to whatever answers (see ``FaultKind/isReshape``).
    func inject(_ fault: Fault) {
        guard fault.kind != .unreachable else { return }
        state.withLock { state in
            if fault.kind.isReshape { state.reshapes.append(fault) } else { state.faults.append(fault) }
        }
    }

    /// Disarms every fault and ends every stall in progress (their connections close).
    func clearFaults() {
        let stalls = state.withLock { state -> [StallGate] in
            state.faults.removeAll()
            state.reshapes.removeAll()
            defer { state.stalls.removeAll() }
            return state.stalls
        }
        // Outside our lock: a release takes the gate's lock and shuts a socket down.
        for gate in stalls {
            gate.release()
        }
    }

    /// The provider's primary origin.
    var primaryOrigin: String { type(of: provider).origins[0] }

    /// Socket-free callers (and a server put directly over this chain) reach every origin:
    /// each request is taken as arriving on the origin that serves its path.
    func respond(to request: HTTPRequest) -> HTTPResponse {
        handle(request, overSocket: false, origin: provider.origin(serving: request.path)).response
    }

    func plan(for request: HTTPRequest) -> ResponsePlan {
        handle(request, overSocket: true, origin: provider.origin(serving: request.path))
    }

    func recordRejection(_ request: HTTPRequest, response: HTTPResponse) {
        recordRejection(request, response: response, origin: primaryOrigin)
    }

    /// A request that came in on `origin` (one listener of the provider).
    func plan(for request: HTTPRequest, origin: String) -> ResponsePlan {
        handle(request, overSocket: true, origin: origin)
    }

    func recordRejection(_ request: HTTPRequest, response: HTTPResponse, origin: String) {
        let time = now()
        let exchange = state.withLock { $0.record(request, response, fault: nil, at: time, origin: origin) }
        observer?(exchange)
    }

    /// 404 for a path another of the provider's origins serves, as the provider's other host
    /// would answer; recorded, and no fault is taken for it (the fault is on the other host).
    static let wrongOrigin = HTTPResponse.json(404, ["message": "404 Not Found"]).refused(by: .wrongOrigin)

    private func handle(_ request: HTTPRequest, overSocket: Bool, origin: String) -> ResponsePlan {
        if provider.origin(serving: request.path) != origin {
            let time = now()
            let exchange = state.withLock { $0.record(request, Self.wrongOrigin, fault: nil, at: time, origin: origin) }
            observer?(exchange)
            return ResponsePlan(response: Self.wrongOrigin)
        }
        let time = now()
        // One lock a request: a hold is taken, or the answer made and recorded, in one go.
        let outcome = state.withLock { state -> Outcome in
            if overSocket, let (gate, number) = Self.takeHold(&state, for: request) { return .held(gate, number) }
            let fault = state.takeFault(for: request)
            // Only `unreachable` has no response, and it is never armed here.
            let answer = state.reshaped(fault?.response(for: request) ?? provider.handle(request.answeringHEADAsGET, now: time), for: request, at: time)
            var plan = ResponsePlan(response: answer)
            if overSocket {
                switch fault {
                case .connectionReset?:
                    plan.delivery = .resetMidBody
                case .stall?:
                    let gate = StallGate()
                    state.stalls.removeAll { $0.hasEnded }
                    state.stalls.append(gate)
                    plan.delivery = .stall(gate)
                default:
                    break
                }
            }
            return .answered(plan, state.record(request, answer, fault: fault, at: time, origin: origin))
        }
        let (plan, exchange): (ResponsePlan, RecordedExchange)
        switch outcome {
        case .held(let gate, let number):
            holdObserver?(request, number)
            // Nothing recorded yet: the exchange is recorded with the provider's answer, once
            // the hold is released.
            return ResponsePlan(response: HTTPResponse(status: 0, reason: "Held"), delivery: .hold(gate, answer: { [self] in self.answerHeld(request, origin: origin) }, finished: { [holdEndObserver] in holdEndObserver?(number) }))
        case .answered(let answered, let recorded):
            (plan, exchange) = (answered, recorded)
        }
        // Outside the lock: an observer that is slow (a terminal) must not hold up recording.
        observer?(exchange)
        if case .stall(let gate) = plan.delivery {
            stallObserver?(request)
            stallStarted?(StallHandle(gate: gate, request: request))
        }
        return plan
    }

    /// What a request met: the provider's answer, recorded, or a hold (its gate and number).
    private enum Outcome {
        case answered(ResponsePlan, RecordedExchange)
        case held(StallGate, Int)
    }

    /// A gate for `request`, and its hold number, when the fault it meets first is a `hold`
    /// (which is then taken); caller holds the lock.
    private static func takeHold(_ state: inout State, for request: HTTPRequest) -> (StallGate, Int)? {
        guard let fault = state.faults.first(where: { $0.matches(request) }), fault.kind == .hold else { return nil }
        _ = state.takeFault(for: request)
        let gate = StallGate()
        state.stalls.removeAll { $0.hasEnded }
        state.stalls.append(gate)
        state.held = state.held.filter { !$0.value.hasEnded }
        let number = state.holdsTaken
        state.holdsTaken += 1
        state.held[number] = gate
        return (gate, number)
    }

    /// How many holds are kept: those whose connection is not yet done, and those done since
    /// the last hold was taken.
    var holdsKept: Int { state.withLock { $0.held.count } }

    /// Answers the `number`-th held request (``holdObserver`` told its number) now, leaving
    /// every other held request held; false when no request has that number.
    func releaseHold(_ number: Int) -> Bool {
        // A number taken whose request is done (and forgotten) is released already.
        let (known, gate) = state.withLock { state in (number >= 0 && number < state.holdsTaken, state.held[number]) }
        // Outside our lock, as in `clearFaults()`.
        gate?.release()
        return known
    }

    /// The provider's answer to a held request, at release time, recorded as it is made.
    private func answerHeld(_ request: HTTPRequest, origin: String) -> HTTPResponse {
        let time = now()
        let (answer, exchange) = state.withLock { state -> (HTTPResponse, RecordedExchange) in
            let answer = state.reshaped(provider.handle(request.answeringHEADAsGET, now: time), for: request, at: time)
            return (answer, state.record(request, answer, fault: .hold, at: time, origin: origin))
        }
        observer?(exchange)
        return answer
    }
}

/// One origin of a provider: the listener's view of the shared chain, so every exchange is
/// recorded with the origin it came in on and one recording, one fault list and one persona
/// serve all of a provider's origins.
struct OriginResponder: TransportAwareResponder {
    let origin: String
    let chain: ProviderResponder

    func respond(to request: HTTPRequest) -> HTTPResponse {
        chain.plan(for: request, origin: origin).response
    }

    func plan(for request: HTTPRequest) -> ResponsePlan {
        chain.plan(for: request, origin: origin)
    }

    func recordRejection(_ request: HTTPRequest, response: HTTPResponse) {
        chain.recordRejection(request, response: response, origin: origin)
    }
}
