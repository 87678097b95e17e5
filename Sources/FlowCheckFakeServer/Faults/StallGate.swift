/// Lets `clearFaults()` end a stall that holds a connection on another thread.
///
/// The connection installs a wake-up (a `shutdown()` of its socket) while it holds, and
/// ends the gate before the server can close the descriptor. Release and end share one lock,
/// so a release can never shut down a descriptor number that has been closed and reused.
final class StallGate: Sendable {
    private enum State {
        case pending
        case holding(wake: @Sendable () -> Void)
        case released
        case ended
    }

    private let state = Locked(State.pending)

    /// Starts holding with `wake` as the way to interrupt it; false if the gate was already
    /// released (the fault was cleared before the connection got here), so do not hold.
    func hold(wake: @escaping @Sendable () -> Void) -> Bool {
        state.withLock { state in
            guard case .pending = state else { return false }
            state = .holding(wake: wake)
            return true
        }
    }

    /// Called by the connection when the stall is over, whatever ended it; `wake` is never
    /// called after this returns.
    func end() {
        state.withLock { $0 = .ended }
    }

    /// Ends the gate like ``end()`` and says whether it had been released (rather than the
    /// peer closing or the server stopping).
    func endReportingRelease() -> Bool {
        state.withLock { state in
            let released: Bool
            if case .released = state { released = true } else { released = false }
            state = .ended
            return released
        }
    }

    /// Whether the connection has finished with this gate.
    var hasEnded: Bool {
        state.withLock { state in
            if case .ended = state { return true }
            return false
        }
    }

    /// Ends the stall: wakes a holding connection, or stops a pending one from holding.
    func release() {
        state.withLock { state in
            switch state {
            case .pending:
                state = .released
            case .holding(let wake):
                wake()
                state = .released
            case .released, .ended:
                break
            }
        }
    }
}
