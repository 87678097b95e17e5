import Foundation

/// The recording + fault + provider chain behind a ``FakeProviderServer``.
///
/// Fault selection, the provider call and recording happen under one lock so the recording
/// order is the handling order, and the exchange is recorded before the server writes the
/// response: a client that has seen a response can rely on finding it in the recording.
final class ProviderResponder: HTTPResponder {
    private struct State {
        var faults: [Fault] = []
        var exchanges: [RecordedExchange] = []
    }

    private let provider: any FakeProvider
    private let now: @Sendable () -> Date
    private let state = Locked(State())
    /// Told of every exchange once it is recorded (`flowcheck serve` logs them).
    private let observer: (@Sendable (RecordedExchange) -> Void)?

    init(provider: any FakeProvider, now: @escaping @Sendable () -> Date, observer: (@Sendable (RecordedExchange) -> Void)? = nil) {
        self.provider = provider
        self.now = now
        self.observer = observer
    }

    var exchanges: [RecordedExchange] {
        state.withLock { $0.exchanges }
    }

    var faults: [Fault] {
        state.withLock { $0.faults }
    }

    /// Adds an HTTP-level fault; the earliest injected matching fault wins.
    func inject(_ fault: Fault) {
        guard fault.kind != .unreachable else { return }
        state.withLock { $0.faults.append(fault) }
    }

    func clearFaults() {
        state.withLock { $0.faults.removeAll() }
    }

    func respond(to request: HTTPRequest) -> HTTPResponse {
        let time = now()
        let (answer, exchange) = state.withLock { state -> (HTTPResponse, RecordedExchange) in
            var response: HTTPResponse?
            var faultName: String?
            if let index = state.faults.firstIndex(where: { $0.matches(request) }) {
                let fault = state.faults[index]
                response = fault.kind.response
                faultName = fault.kind.rawValue
                if let times = fault.times {
                    if times <= 1 {
                        state.faults.remove(at: index)
                    } else {
                        state.faults[index].times = times - 1
                    }
                }
            }
            let answer = response ?? provider.handle(request, now: time)
            let exchange = RecordedExchange(
                index: state.exchanges.count, time: time, request: request,
                response: answer, fault: response == nil ? nil : faultName
            )
            state.exchanges.append(exchange)
            return (answer, exchange)
        }
        // Outside the lock: an observer that is slow (a terminal) must not hold up recording.
        observer?(exchange)
        return answer
    }
}
