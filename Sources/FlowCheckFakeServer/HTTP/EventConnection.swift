#if os(Linux)
import Foundation
import Glibc
import CFlowCheckEpoll

/// One accepted socket of an ``EventServerCore``, served by the loop as a state machine with
/// the behaviour of ``HTTPConnection`` (the threaded core's): the same parser, bounds, answers,
/// refusals, close rules and deliberate misbehaviour, each blocking wait there a phase here.
///
/// Touched only on the loop's thread. Its descriptor is non-blocking and closed only by
/// ``close()``, after the loop has stopped watching it.
final class EventConnection: EventHandler, @unchecked Sendable {
    private enum AfterWrite {
        /// `100 Continue`: read on (the body).
        case read
        /// A keep-alive answer: the next request (already begun, if pipelined) gets its full
        /// deadlines from now, when the answer is through.
        case nextRequest
        /// An answer that ends the connection; `quick`: the client promised to close, so
        /// with nothing left either way it need not be drained (see ``HTTPConnection``).
        case close(quick: Bool)
        /// A refusal: half-close and drain what the client still sends.
        case drain
        /// Reset mid-body: close with RST.
        case abort
        /// A held request's answer: half-close and close.
        case shutdown
    }

    private enum Phase {
        case reading
        case writing(bytes: [UInt8], offset: Int, deadline: ContinuousClock.Instant?, then: AfterWrite, isAnswer: Bool)
        case draining(until: ContinuousClock.Instant, drained: Int)
        case stalled(StallGate)
        case held(StallGate, answer: @Sendable () -> HTTPResponse, omitBody: Bool)
        case closed
    }

    let fd: Int32
    let core: EventServerCore
    let loop: EventLoop
    private var limits: HTTPServerLimits { core.limits }
    private let parser: HTTPRequestParser
    private var phase = Phase.reading
    private var buffer: [UInt8] = []
    private var continueSent = false
    private var requestStart: ContinuousClock.Instant?
    private var headDone: ContinuousClock.Instant?
    /// What the loop watches the descriptor for now.
    private var watching = EPOLLIN.rawValue
    /// Set while ``process()`` runs, so a write that finishes at once does not start it again.
    private var processing = false
    /// Since when it has waited for a request's first byte (or for its keep-alive answer to be
    /// read): the capped server closes the longest-idle one for a newcomer.
    private(set) var idleSince: ContinuousClock.Instant?
    private(set) var deadline: ContinuousClock.Instant?
    /// Called once when the connection closes (a held request's `finished`).
    private var onClose: (@Sendable () -> Void)?

    private static let maxDrainBytes = 4 * 1024 * 1024

    /// `seconds` from now, at most a day (as the threaded core's waits): a finite timeout too
    /// large for a `Duration` would trap.
    static func fromNow(_ seconds: TimeInterval) -> ContinuousClock.Instant {
        .now + .seconds(min(seconds, 86_400))
    }

    init(fd: Int32, core: EventServerCore, loop: EventLoop) {
        self.fd = fd
        self.core = core
        self.loop = loop
        parser = HTTPRequestParser(limits: core.limits)
    }

    /// Registers with the loop and waits for the first request.
    func begin() {
        idleSince = .now
        setDeadline(HTTPConnection.bound(limits.idleTimeout).map(Self.fromNow))
        loop.register(fd, self, events: EPOLLIN.rawValue)
    }

    private func setDeadline(_ instant: ContinuousClock.Instant?) {
        deadline = instant
        loop.noteDeadline(instant)
    }

    /// Watches for `events`, telling the loop only when that changes.
    private func want(_ events: UInt32) {
        guard events != watching else { return }
        watching = events
        loop.watch(fd, events: events)
    }

    private var isClosed: Bool {
        if case .closed = phase { return true }
        return false
    }

    // MARK: - Events

    func handle(events: UInt32) {
        switch phase {
        case .reading:
            readRequest()
        case .writing:
            flush()
        case .draining(let until, let drained):
            drain(until: until, drained: drained)
        case .stalled(let gate):
            if discardUntilEnd() {
                gate.end()
                close()
            }
        case .held:
            if discardUntilEnd() { answerHeld() }
        case .closed:
            break
        }
    }

    func expire() {
        let now = ContinuousClock.now
        guard let deadline, deadline <= now else { return }
        switch phase {
        case .reading:
            if buffer.isEmpty {
                // Idle too long: closed without an answer.
                close()
            } else if case .expired = HTTPConnection.readWait(limits, requestStart: requestStart, headComplete: headIsComplete, headDone: headDone) {
                reject(status: 408, reason: headIsComplete ? "Request body timed out" : "Request header timed out", rule: .httpTimeout)
            } else {
                reject(status: 408, reason: "Request timed out", rule: .httpTimeout)
            }
        case .writing, .draining:
            // A client that does not read its answer, or a drain that has run its course.
            close()
        case .stalled, .held, .closed:
            setDeadline(nil)
        }
    }

    private var headIsComplete: Bool {
        if case .head = parser.parseHead(buffer) { return true }
        return false
    }

    // MARK: - Reading requests

    private func readRequest() {
        let count = loop.scratch.withUnsafeMutableBytes { raw in recv(fd, raw.baseAddress, raw.count, 0) }
        if count > 0 {
            idleSince = nil
            core.activity.tick()
            if buffer.isEmpty { requestStart = .now }
            buffer.append(contentsOf: loop.scratch[0..<count])
            process()
        } else if count == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
            close()
        }
    }

    /// Answers every complete request in the buffer, then waits for more.
    /// Most requests answered for one connection in one turn of the loop: a client pipelining
    /// thousands waits for the others' turn, not they for its whole pipeline.
    private static let requestsPerTurn = 16

    private func process() {
        processing = true
        defer { processing = false }
        var answered = 0
        while case .reading = phase {
            switch parser.parse(buffer) {
            case .request(let request, let consumed):
                if answered == Self.requestsPerTurn {
                    // The rest after what the loop has in hand; no deadline meanwhile (the next
                    // turn sets it again).
                    setDeadline(nil)
                    loop.execute { [self] in
                        if case .reading = phase, !processing { process() }
                    }
                    return
                }
                answered += 1
                buffer.removeFirst(consumed)
                continueSent = false
                headDone = nil
                idleSince = nil
                let pipelined = !buffer.isEmpty
                let plan = HTTPConnection.plan(core.responder, for: request)
                // A responder may have stopped the server (and closed this connection).
                guard !isClosed else { return }
                deliver(plan, for: request, pipelined: pipelined)
            case .failure(let status, let reason, let rule):
                reject(status: status, reason: reason, rule: rule)
                return
            case .needMoreData:
                let head = parser.parseHead(buffer)
                if !continueSent, case .head(let parsed) = head, parsed.expectsContinue {
                    continueSent = true
                    write(Array("HTTP/1.1 100 Continue\r\n\r\n".utf8), deadline: nil, then: .read, isAnswer: false)
                    continue
                }
                let headComplete = if case .head = head { true } else { false }
                if headComplete, headDone == nil { headDone = .now }
                switch HTTPConnection.readWait(limits, requestStart: requestStart, headComplete: headComplete, headDone: headDone) {
                case .upTo(let seconds):
                    // The silence is counted from the last read, the rest from `now`.
                    setDeadline(seconds.map(Self.fromNow))
                case .expired:
                    reject(status: 408, reason: headComplete ? "Request body timed out" : "Request header timed out", rule: .httpTimeout)
                    return
                }
                if buffer.isEmpty, idleSince == nil { idleSince = .now }
                want(EPOLLIN.rawValue)
                return
            }
        }
    }

    // MARK: - Answering

    private func deliver(_ plan: ResponsePlan, for request: HTTPRequest, pipelined: Bool) {
        let omitBody = request.method == "HEAD"
        switch plan.delivery {
        case .complete:
            let keepAlive = HTTPConnection.keepsAlive(request: request, response: plan.response)
            let bytes = HTTPConnection.serialize(plan.response, keepAlive: keepAlive, omitBody: omitBody)
            // Idle from the answer on, as the threaded core: unless a next request is read.
            if keepAlive, !pipelined { idleSince = .now }
            let quick = HTTPConnection.promisedClose(request) && !pipelined
            write(bytes, deadline: HTTPConnection.bound(limits.responseTimeout).map(Self.fromNow), then: keepAlive ? .nextRequest : .close(quick: quick), isAnswer: true)
        case .resetMidBody:
            var bytes = HTTPConnection.serialize(plan.response, keepAlive: false, omitBody: true)
            if !omitBody { bytes.append(contentsOf: plan.response.body.prefix(plan.response.body.count / 2)) }
            write(bytes, deadline: nil, then: .abort, isAnswer: false)
        case .stall(let gate):
                        // The gate keeps this connection until it ends (close() ends it).
            let held = gate.hold { [self] in
                loop.execute { self.stallReleased(gate) }
            }
            guard held else {
                gate.end()
                close()
                return
            }
            phase = .stalled(gate)
            setDeadline(nil)
            want(EPOLLIN.rawValue)
        case .hold(let gate, let answer, let finished):
            onClose = finished
            phase = .held(gate, answer: answer, omitBody: omitBody)
            setDeadline(nil)
                        let holding = gate.hold { [self] in
                loop.execute { self.holdReleased(gate) }
            }
            if holding {
                want(EPOLLIN.rawValue)
            } else {
                answerHeld()
            }
        }
    }

    private func stallReleased(_ gate: StallGate) {
        guard case .stalled(let current) = phase, current === gate else { return }
        gate.end()
        close()
    }

    private func holdReleased(_ gate: StallGate) {
        guard case .held(let current, _, _) = phase, current === gate else { return }
        answerHeld()
    }

    /// The hold is over: answers if it was released (the peer closing or the server stopping
    /// first ends it unanswered).
    private func answerHeld() {
        guard case .held(let gate, let answer, let omitBody) = phase else { return }
        guard gate.endReportingRelease() else {
            close()
            return
        }
        let response = answer()
        write(HTTPConnection.serialize(response, keepAlive: false, omitBody: omitBody), deadline: nil, then: .shutdown, isAnswer: false)
    }

    /// Reads and drops what a stalled or held peer sends; true once it has closed or failed.
    private func discardUntilEnd() -> Bool {
        let count = loop.scratch.withUnsafeMutableBytes { raw in recv(fd, raw.baseAddress, raw.count, 0) }
        if count > 0 { return false }
        return count == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
    }

    /// Answers a request the parser refused, records it if the responder keeps a record,
    /// then drains and closes.
    private func reject(status: Int, reason: String, rule: FlowCheckRule) {
        let response = core.responder.rejection(status: status, reason: reason).refused(by: rule)
        if let aware = core.responder as? any TransportAwareResponder {
            aware.recordRejection(HTTPRequestParser.salvage(buffer), response: response)
        }
        guard !isClosed else { return }
        write(HTTPConnection.serialize(response, keepAlive: false, omitBody: false), deadline: nil, then: .drain, isAnswer: false)
    }

    // MARK: - Writing

    /// Starts writing `bytes`; what follows runs once they are all written. A write that
    /// cannot finish by `deadline` (by `readTimeout` of silence when nil) drops the connection.
    private func write(_ bytes: [UInt8], deadline: ContinuousClock.Instant?, then: AfterWrite, isAnswer: Bool) {
        // A responder or an answer's maker may have stopped the server (closing this connection).
        guard !isClosed else { return }
        phase = .writing(bytes: bytes, offset: 0, deadline: deadline, then: then, isAnswer: isAnswer)
        setDeadline(writeDeadline(within: deadline))
        flush()
    }

    /// When a write waiting from now gives up: after `readTimeout` of the reader's silence,
    /// and by `deadline` (the whole answer's) at the latest.
    private func writeDeadline(within deadline: ContinuousClock.Instant?) -> ContinuousClock.Instant? {
        let silence = HTTPConnection.bound(limits.readTimeout).map(Self.fromNow)
        return [deadline, silence].compactMap { $0 }.min()
    }

    private func flush() {
        guard case .writing(let bytes, var offset, let deadline, let then, let isAnswer) = phase else { return }
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes { raw in
                send(fd, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
            }
            if sent > 0 {
                offset += sent
                continue
            }
            if sent < 0 && errno == EINTR { continue }
            if sent < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
                phase = .writing(bytes: bytes, offset: offset, deadline: deadline, then: then, isAnswer: isAnswer)
                setDeadline(writeDeadline(within: deadline))
                want(EPOLLOUT.rawValue)
                return
            }
            close()
            return
        }
        if isAnswer { core.activity.tick() }
        written(then: then)
    }

    private func written(then: AfterWrite) {
        switch then {
        case .read, .nextRequest:
            // A pipelined request already begun gets its own full deadline from now.
            if case .nextRequest = then { requestStart = buffer.isEmpty ? nil : .now }
            phase = .reading
            // Whatever arrived meanwhile (a pipelined request, a body after `100 Continue`);
            // inside process() its own loop goes on.
            if !processing { process() }
        case .close(let quick):
            if quick, Socket.isDrainedBothWays(fd) {
                Socket.shutdownWrite(fd)
                close()
            } else {
                closeGracefully()
            }
        case .drain:
            closeGracefully()
        case .abort:
            Socket.setAbortiveClose(fd)
            close()
        case .shutdown:
            Socket.shutdownWrite(fd)
            close()
        }
    }

    /// Half-closes, then reads and discards what the peer still sends until it closes too, for
    /// at most `drainTimeout` in total (and `readTimeout`) and ``maxDrainBytes``.
    private func closeGracefully() {
        Socket.shutdownWrite(fd)
        let limit = min(HTTPConnection.bound(limits.readTimeout) ?? limits.drainTimeout, limits.drainTimeout)
        let until = Self.fromNow(max(limit, 0))
        phase = .draining(until: until, drained: 0)
        setDeadline(until)
        want(EPOLLIN.rawValue)
    }

    private func drain(until: ContinuousClock.Instant, drained: Int) {
        let count = loop.scratch.withUnsafeMutableBytes { raw in recv(fd, raw.baseAddress, raw.count, 0) }
        if count > 0 {
            let total = drained + count
            if total >= Self.maxDrainBytes || until <= .now {
                close()
            } else {
                phase = .draining(until: until, drained: total)
            }
        } else if count == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
            close()
        }
    }

    // MARK: - Closing

    /// Stops watching and closes the descriptor; ends a stall or hold still in progress.
    func close() {
        switch phase {
        case .closed:
            return
        case .stalled(let gate):
            gate.end()
        case .held(let gate, _, _):
            _ = gate.endReportingRelease()
        case .reading, .writing, .draining:
            break
        }
        phase = .closed
        deadline = nil
        idleSince = nil
        loop.deregister(fd)
        core.closeDescriptor(fd)
        core.connectionClosed(self)
        let finished = onClose
        onClose = nil
        finished?()
    }
}
#endif
