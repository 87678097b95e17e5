import FlowCheckFakeServer
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A socket descriptor used by one blocking call at a time, on that call's own thread, which
/// `close()` never closes under the call's feet: it wakes the call (`shutdown`) and the call
/// closes the descriptor when it ends. A closed descriptor's number can then never be reused
/// by another socket while a call still polls it.
final class OwnedSocket: Sendable {
    private struct State {
        var fd: Int32
        /// A blocking call is running (it owns `fd` until it ends).
        var busy = false
        /// `close()` came while a call was running: the call closes when it ends.
        var closeWhenIdle = false
    }

    private let state: Locked<State>

    init(_ fd: Int32) {
        state = Locked(State(fd: fd))
    }

    /// Whether `close()` has been called.
    var isClosed: Bool {
        state.withLock { $0.fd < 0 || $0.closeWhenIdle }
    }

    /// Runs `body` with the descriptor unless closed: for calls that do not block.
    func withOpen<T>(_ body: (Int32) -> T) -> T? {
        state.withLock { state in
            state.fd >= 0 && !state.closeWhenIdle ? body(state.fd) : nil
        }
    }

    /// Marks a blocking call as running and hands it the descriptor.
    /// - Throws: ``SocketError`` (`EBADF`) once closed; (`EBUSY`) while another call runs,
    ///   which is a test's mistake.
    func claim(_ call: String) throws -> Int32 {
        try state.withLock { state throws -> Int32 in
            guard state.fd >= 0, !state.closeWhenIdle else { throw SocketError(call: "\(call) after close()", code: EBADF) }
            guard !state.busy else { throw SocketError(call: "\(call) while another call runs", code: EBUSY) }
            state.busy = true
            return state.fd
        }
    }

    /// Ends a claimed call; closes the descriptor if `close()` came meanwhile.
    func release() {
        let fd = state.withLock { state -> Int32? in
            state.busy = false
            guard state.closeWhenIdle else { return nil }
            defer { state.fd = -1 }
            return state.fd
        }
        if let fd { _ = Glue.close(fd) }
    }

    /// Closes now, or (a call running) wakes the call and leaves the closing to it. Later
    /// calls do nothing.
    func close() {
        let fd = state.withLock { state -> Int32? in
            guard state.fd >= 0, !state.closeWhenIdle else { return nil }
            if state.busy {
                state.closeWhenIdle = true
                _ = shutdown(state.fd, Int32(SHUT_RDWR))
                return nil
            }
            defer { state.fd = -1 }
            return state.fd
        }
        if let fd { _ = Glue.close(fd) }
    }
}
