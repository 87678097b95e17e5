import Foundation
import FlowCheckFakeServer

/// The app calls a flow started with `"async": LABEL` and has not yet joined with `"await"`.
///
/// Every wait here ends when its condition holds or the waiting task is cancelled (the
/// flow's real-time watchdog cancels the steps), never on a timer: a call that never ends is
/// reported by the watchdog with the step that waited for it.
final class BackgroundCalls: Sendable {
    private struct Call {
        var task: Task<Void, Never>?
        /// The call is on its way to the SDK (`perform` said so).
        var underway = false
        /// How many exchanges the server had recorded when the call started.
        var firstExchange = 0
        var outcome: Result<CallOutcome, any Error>?
        /// The hold number of the request a `hold` fault held while the call got under way.
        var held: Int?
    }

    private struct State {
        var calls: [String: Call] = [:]
        /// The hold numbers of the requests a `hold` fault has started holding, over the whole
        /// flow, in the order the server told of them.
        var held: [Int] = []
        /// Held requests the server is done with (answered, or their connection ended).
        var heldEnded: Set<Int> = []
        var waiters: [UUID: CheckedContinuation<Void, Never>] = [:]
    }

    private let state = Locked(State())

    /// Told by the fake server each time a `hold` fault starts holding a request.
    func requestHeld(_ number: Int) {
        poke { $0.held.append(number) }
    }

    /// Told by the fake server each time it is done with a held request.
    func holdEnded(_ number: Int) {
        poke { $0.heldEnded.insert(number) }
    }

    /// Returns once every request a `hold` fault held has been answered or ended (after
    /// `clearFaults`, whose release makes the server answer them).
    func holdsSettled() async {
        await wait { state in state.held.allSatisfy(state.heldEnded.contains) }
    }

    /// The hold number of the request held while the call `label` got under way; nil when
    /// none was (the call ended, or no hold fault was armed), or no such call runs.
    func holdNumber(of label: String) -> Int? {
        state.withLock { $0.calls[label]?.held }
    }

    /// Returns once the server is done with the held request `number`.
    func holdSettled(_ number: Int) async {
        await wait { $0.heldEnded.contains(number) }
    }

    /// Starts `perform` in the background under `label`, and returns once it is under way:
    /// when `waitForHold` (a `hold` fault is armed), once the call has ended or the server
    /// holds a request it did not hold before; otherwise once the call has ended or `perform`
    /// has called the closure it is given (the call is on its way to the SDK, so nothing the
    /// flow asks next can reach the SDK before it).
    func start(_ label: String, firstExchange: Int, waitForHold: Bool, _ perform: @escaping @Sendable (_ underway: @escaping @Sendable () -> Void) async throws -> CallOutcome) async {
        // Registered before the task exists, so the task always finds its entry.
        let heldBefore = state.withLock { state -> Int in
            state.calls[label] = Call(firstExchange: firstExchange)
            return state.held.count
        }
        let task = Task { [self] in
            let result: Result<CallOutcome, any Error>
            do { result = .success(try await perform { self.poke { $0.calls[label]?.underway = true } }) } catch { result = .failure(error) }
            poke { $0.calls[label]?.outcome = result }
        }
        state.withLock { $0.calls[label]?.task = task }
        await wait { state in
            guard let call = state.calls[label] else { return true }
            if call.outcome != nil { return true }
            return waitForHold ? state.held.count > heldBefore : call.underway
        }
        // The first request held since the call started is the one its `release` answers.
        state.withLock { state in
            if waitForHold, state.held.count > heldBefore { state.calls[label]?.held = state.held[heldBefore] }
        }
    }

    /// Waits for the call started under `label` to end, and forgets it; nil when the wait
    /// was cancelled (the flow ran out of time) or no such call runs.
    /// Also returns how many exchanges the server had recorded when the call started.
    func join(_ label: String) async throws -> (outcome: CallOutcome, firstExchange: Int)? {
        await wait { state in state.calls[label]?.outcome != nil || state.calls[label] == nil }
        let call = state.withLock { state -> Call? in
            guard state.calls[label]?.outcome != nil else { return nil }
            return state.calls.removeValue(forKey: label)
        }
        guard let call, let outcome = call.outcome else { return nil }
        return (try outcome.get(), call.firstExchange)
    }

    /// Whether any background call has not been joined yet.
    var anyRunning: Bool { state.withLock { !$0.calls.isEmpty } }

    /// Cancels every call; returns the labels of those that had not ended (sorted).
    func cancelAll() -> [String] {
        let calls = state.withLock { state -> [String: Call] in
            defer { state.calls.removeAll() }
            return state.calls
        }
        for call in calls.values { call.task?.cancel() }
        return calls.filter { $0.value.outcome == nil }.keys.sorted()
    }

    // MARK: - Signalling

    private func poke(_ change: (inout State) -> Void) {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            change(&state)
            defer { state.waiters.removeAll() }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns once `condition` holds, or the waiting task is cancelled.
    private func wait(_ condition: @escaping @Sendable (State) -> Bool) async {
        while !Task.isCancelled {
            if state.withLock({ condition($0) }) { return }
            let id = UUID()
            await withTaskCancellationHandler {
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    let resumeNow = state.withLock { state -> Bool in
                        if condition(state) || Task.isCancelled { return true }
                        state.waiters[id] = continuation
                        return false
                    }
                    if resumeNow { continuation.resume() }
                }
            } onCancel: {
                let waiter = state.withLock { $0.waiters.removeValue(forKey: id) }
                waiter?.resume()
            }
        }
    }
}
