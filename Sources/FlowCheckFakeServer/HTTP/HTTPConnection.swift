import Foundation

/// Serves one accepted socket until the peer leaves, asks to close, misbehaves or times out.
///
/// Runs on its own thread with a blocking socket. It never closes `fd` itself: the server
/// closes it after deregistering, so `stop()` can never shut down a reused descriptor.
///
/// Waiting is bounded three ways (see ``HTTPServerLimits``): `idleTimeout` before a
/// request's first byte, `requestHeaderTimeout` from that byte until the head is complete,
/// and `readTimeout` for every silence in between and in the body. Each wait is the smallest
/// bound that applies, measured on a monotonic clock.
struct HTTPConnection {
    let fd: Int32
    let responder: any HTTPResponder
    let limits: HTTPServerLimits
    /// Ticked for every read that brings bytes and every answer written in full.
    var activity: ActivityMeter? = nil
    /// Told when the connection starts waiting for a request and when one begins.
    var idleness: IdleMark? = nil

    func run() {
        let parser = HTTPRequestParser(limits: limits)
        var buffer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        var continueSent = false
        var requestStart: ContinuousClock.Instant?
        /// When the current request's head was complete (its body's deadline runs from there).
        var headDone: ContinuousClock.Instant?
        while true {
            switch parser.parse(buffer) {
            case .request(let request, let consumed):
                buffer.removeFirst(consumed)
                continueSent = false
                headDone = nil
                // Being answered, pipelined or not: never the idle one to close for a newcomer.
                idleness?.busy()
                guard deliver(Self.plan(responder, for: request), for: request, pipelined: !buffer.isEmpty) else { return }
                // A pipelined request already begun gets its own full deadline from now.
                requestStart = buffer.isEmpty ? nil : .now
            case .failure(let status, let reason, let rule):
                reject(buffer, status: status, reason: reason, rule: rule)
                return
            case .needMoreData:
                let head = parser.parseHead(buffer)
                if !continueSent, case .head(let parsed) = head, parsed.expectsContinue {
                    continueSent = true
                    guard Socket.sendAll(fd, Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)) else { return }
                }
                let headComplete = if case .head = head { true } else { false }
                if headComplete, headDone == nil { headDone = .now }
                let wait: TimeInterval?
                switch Self.readWait(limits, requestStart: requestStart, headComplete: headComplete, headDone: headDone) {
                case .upTo(let seconds):
                    wait = seconds
                case .expired:
                    reject(buffer, status: 408, reason: headComplete ? "Request body timed out" : "Request header timed out", rule: .httpTimeout)
                    return
                }
                // Busy before a byte is taken; idle while it waits for a request's first byte.
                switch Socket.receive(fd, into: &chunk, waitingAtMost: wait, claim: idleness.map { mark in { mark.busy() } }, unclaim: buffer.isEmpty ? idleness.map { mark in { mark.idle() } } : nil) {
                case .data(let count):
                    activity?.tick()
                    if buffer.isEmpty { requestStart = .now }
                    buffer.append(contentsOf: chunk[0..<count])
                case .endOfStream, .failed:
                    return
                case .timedOut:
                    // An idle connection just closes; a half-sent request learns why.
                    if !buffer.isEmpty { reject(buffer, status: 408, reason: "Request timed out", rule: .httpTimeout) }
                    return
                }
            }
        }
    }

    enum ReadWait {
        /// Wait at most this long (nil: without bound).
        case upTo(TimeInterval?)
        /// The head deadline has passed.
        case expired
    }

    /// How long the next read may wait, given when the current request began (nil: none yet)
    /// and when its head was complete.
    static func readWait(_ limits: HTTPServerLimits, requestStart: ContinuousClock.Instant?, headComplete: Bool, headDone: ContinuousClock.Instant?) -> ReadWait {
        guard let requestStart else { return .upTo(Self.bound(limits.idleTimeout)) }
        let silence = Self.bound(limits.readTimeout)
        // The head's deadline runs from the request's first byte, the body's from the head.
        let (start, limit) = headComplete ? (headDone ?? requestStart, limits.requestBodyTimeout) : (requestStart, limits.requestHeaderTimeout)
        guard let deadline = Self.bound(limit) else { return .upTo(silence) }
        let left = deadline - start.duration(to: .now).timeInterval
        guard left > 0 else { return .expired }
        return .upTo(min(left, silence ?? left))
    }

    /// When a response begun now must be written by (``HTTPServerLimits/responseTimeout``).
    var responseDeadline: ContinuousClock.Instant? {
        Self.bound(limits.responseTimeout).map { .now + .seconds(min($0, 86_400)) }
    }

    /// A configured timeout, or nil if it is disabled (0 or less, or not finite).
    static func bound(_ seconds: TimeInterval) -> TimeInterval? {
        seconds > 0 && seconds.isFinite ? seconds : nil
    }

    /// The responder's plan for `request`; plain responders always deliver completely.
    static func plan(_ responder: any HTTPResponder, for request: HTTPRequest) -> ResponsePlan {
        if let aware = responder as? any TransportAwareResponder {
            return aware.plan(for: request)
        }
        return ResponsePlan(response: responder.respond(to: request))
    }
}

extension Duration {
    /// The duration in seconds, for APIs that take a `TimeInterval`.
    var timeInterval: TimeInterval {
        TimeInterval(components.seconds) + TimeInterval(components.attoseconds) / 1e18
    }
}
