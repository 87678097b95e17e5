import Foundation

/// Writing answers: complete, refused, or deliberately broken by a transport fault.
extension HTTPConnection {
    /// Bytes read from a misbehaving peer after our final response, so closing does not
    /// turn unread input into a RST that destroys the response before the client reads it.
    private static let maxDrainBytes = 4 * 1024 * 1024

    /// Writes `plan` as the answer to `request`; false when the connection is over.
    /// - Parameter pipelined: bytes of a next request already read, waiting to be parsed.
    func deliver(_ plan: ResponsePlan, for request: HTTPRequest, pipelined: Bool) -> Bool {
        let omitBody = request.method == "HEAD"
        switch plan.delivery {
        case .complete:
            let keepAlive = Self.keepsAlive(request: request, response: plan.response)
            let bytes = Self.serialize(plan.response, keepAlive: keepAlive, omitBody: omitBody)
            // Idle from the answer on: a client that has read it finds the connection waiting.
            // Not with a next request already read: that one is being answered, and closing
            // the connection for a newcomer would lose it.
            if keepAlive, !pipelined { idleness?.idle() }
            guard Socket.sendAll(fd, bytes, deadline: responseDeadline) else { return false }
            activity?.tick()
            if !keepAlive {
                // A client that said `Connection: close` sends nothing after its request (RFC
                // 9112 9.6). With that request read whole, nothing more arrived, and every byte
                // of the answer acknowledged (in the client's receive buffer, where a reset its
                // own stray byte might provoke leaves it to be read on Linux), its thread need
                // not wait for the client's own close. Otherwise, or when the system cannot
                // tell, what the client still sends is drained first, as RFC 9112 9.6 advises.
                if Self.promisedClose(request), !pipelined, Socket.isDrainedBothWays(fd) {
                    Socket.shutdownWrite(fd)
                } else {
                    closeGracefully()
                }
            }
            return keepAlive
        case .resetMidBody:
            resetMidBody(plan.response, omitBody: omitBody)
            return false
        case .stall(let gate):
            stall(gate)
            return false
        case .hold(let gate, let answer, let finished):
            hold(gate, answer: answer, omitBody: omitBody)
            finished()
            return false
        }
    }

    /// Answers a request the parser refused, records it if the responder keeps a record,
    /// and closes.
    func reject(_ buffer: [UInt8], status: Int, reason: String, rule: FlowCheckRule) {
        let response = responder.rejection(status: status, reason: reason).refused(by: rule)
        if let aware = responder as? any TransportAwareResponder {
            aware.recordRejection(HTTPRequestParser.salvage(buffer), response: response)
        }
        guard Socket.sendAll(fd, Self.serialize(response, keepAlive: false, omitBody: false)) else { return }
        closeGracefully()
    }

    /// Sends the head, with the full `Content-Length`, and the first half of the body, then
    /// arms an abortive close: the server's `close()` sends RST, not FIN.
    private func resetMidBody(_ response: HTTPResponse, omitBody: Bool) {
        var bytes = Self.serialize(response, keepAlive: false, omitBody: true)
        if !omitBody {
            bytes.append(contentsOf: response.body.prefix(response.body.count / 2))
        }
        _ = Socket.sendAll(fd, bytes)
        Socket.setAbortiveClose(fd)
    }

    /// Holds the connection without writing until the peer closes, the gate is released
    /// (its wake-up shuts the socket down) or the server stops (which does the same).
    /// Bytes the peer sends meanwhile are read and dropped so it never blocks on a full
    /// window; no lock is held while waiting.
    private func stall(_ gate: StallGate) {
        defer { gate.end() }
        guard gate.hold(wake: { [fd] in Socket.shutdownBoth(fd) }) else { return }
        var scratch = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            switch Socket.receive(fd, into: &scratch, waitingAtMost: nil) {
            case .data, .timedOut: continue
            case .endOfStream, .failed: return
            }
        }
    }

    /// Holds the connection like a stall, but a release (its wake-up shuts only our read side
    /// down) ends in the provider's answer, written whole before the connection closes.
    private func hold(_ gate: StallGate, answer: @Sendable () -> HTTPResponse, omitBody: Bool) {
        if gate.hold(wake: { [fd] in Socket.shutdownRead(fd) }) {
            var scratch = [UInt8](repeating: 0, count: 16 * 1024)
            waiting: while true {
                switch Socket.receive(fd, into: &scratch, waitingAtMost: nil) {
                case .data, .timedOut: continue
                case .endOfStream, .failed: break waiting
                }
            }
        }
        // Released before the hold began counts as released: clearFaults came first.
        guard gate.endReportingRelease() else { return }
        let response = answer()
        guard Socket.sendAll(fd, Self.serialize(response, keepAlive: false, omitBody: omitBody)) else { return }
        Socket.shutdownWrite(fd)
    }

    /// Half-closes, then reads and discards what the peer still sends until it closes too,
    /// for at most `limits.drainTimeout` (in total: a client trickling bytes must not keep the
    /// thread draining) and `maxDrainBytes`.
    private func closeGracefully() {
        Socket.shutdownWrite(fd)
        let limit = min(Self.bound(limits.readTimeout) ?? limits.drainTimeout, limits.drainTimeout)
        let deadline = ContinuousClock.now + .seconds(limit)
        var scratch = [UInt8](repeating: 0, count: 16 * 1024)
        var drained = 0
        while drained < Self.maxDrainBytes {
            let left = ContinuousClock.now.duration(to: deadline)
            guard left > .zero else { return }
            guard case .data(let count) = Socket.receive(fd, into: &scratch, waitingAtMost: left.timeInterval) else { return }
            drained += count
        }
    }
}
