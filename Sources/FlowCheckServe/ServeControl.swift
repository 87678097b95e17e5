import Foundation
import FlowCheckFakeServer
import FlowCheckRunner
import FlowCheckSpec

/// The control API of `flowcheck serve`: what a spec's steps do to the fakes (faults, the
/// clock, server operations) and what a report shows (the recorded exchanges, redacted),
/// over JSON HTTP, so curl or a test script can drive a sequence against a real client.
///
/// It always listens on 127.0.0.1, whatever `--host` the fakes bind: it can break the fakes
/// and move their clock. Every answer is JSON; bad input is 400 with a `reason`, an unknown
/// path 404 and a wrong method 405. The routes are ``ServeControlRoute``; docs/serve.md,
/// "The control API", documents them.
public final class ServeControl: Sendable {
    private let host: FakeProviderHost
    private let clock: ServeClock
    /// The control API's listener while it runs.
    private let server = Locked<HTTPServer?>(nil)

    /// - Parameters:
    ///   - host: the started fakes it controls.
    ///   - clock: the virtual clock the fakes read (only this API moves it).
    public init(host: FakeProviderHost, clock: ServeClock) {
        self.host = host
        self.clock = clock
    }

    /// Listens on 127.0.0.1:`port` (0: an ephemeral port) and returns the base URL.
    /// - Parameter maxConnections: its share of the process's descriptors, as each provider's
    ///   port has (0: no cap).
    public func start(port: Int = 0, maxConnections: Int = 0) throws -> URL {
        // A request the parser refuses is answered in JSON too, as every other answer.
        let host = self.host
        let server = HTTPServer(responder: ClosureResponder(rejection: { Self.scrubbed(ServeControlAnswer.failure($0, $1), by: host) }) { [weak self] request in
            self?.respond(to: request) ?? ServeControlAnswer.failure(503, "serve is stopping")
        }, limits: HTTPServerLimits(maxConnections: maxConnections))
        let bound = try server.start(port: port, address: .loopback)
        self.server.withLock { $0 = server }
        var components = URLComponents()
        components.scheme = "http"
        components.host = "127.0.0.1"
        components.port = bound
        return components.url ?? URL(fileURLWithPath: "/")
    }

    /// Stops listening. Idempotent.
    public func stop() {
        server.withLock { $0 }?.stop()
        server.withLock { $0 = nil }
    }

    /// One request, socket-free (the server calls it on the thread serving the connection).
    /// Every answer goes through the host's redactor: a reason quotes what was sent (an unknown
    /// provider, kind or key, a fault's path, which `GET /faults` then lists to anyone), and a
    /// token or secret sent there must not come back in clear.
    func respond(to request: HTTPRequest) -> HTTPResponse {
        Self.scrubbed(unscrubbedAnswer(to: request), by: host)
    }

    /// `response` with every secret form the host knows masked in its body.
    private static func scrubbed(_ response: HTTPResponse, by host: FakeProviderHost) -> HTTPResponse {
        var response = response
        let text = String(decoding: response.body, as: UTF8.self)
        let scrubbed = host.redacted(text)
        if scrubbed != text { response.body = Data(scrubbed.utf8) }
        return response
    }

    private func unscrubbedAnswer(to request: HTTPRequest) -> HTTPResponse {
        let route: ServeControlRoute
        switch ServeControlRoute.match(method: request.method, path: request.path) {
        case .found(let found): route = found
        case .unknownPath: return ServeControlAnswer.failure(404, "no control endpoint \(request.path); GET / lists them")
        case .wrongMethod(let allowed):
            var response = ServeControlAnswer.failure(405, "\(request.path) takes \(allowed.joined(separator: " or "))")
            response.headers.set("Allow", allowed.joined(separator: ", "))
            return response
        }
        do {
            return try answer(route, request)
        } catch {
            return ServeControlAnswer.failure(400, error.reason)
        }
    }

    private func answer(_ route: ServeControlRoute, _ request: HTTPRequest) throws(ServeControlError) -> HTTPResponse {
        let query = try ServeControlInput.query(request, names: route.queryNames)
        if route.bodyKeys.isEmpty, !request.body.isEmpty {
            throw ServeControlError("\(request.method) \(request.path) takes no body")
        }
        switch route {
        case .index:
            return .json(200, [
                "providers": host.served.map(\.provider.rawValue),
                "endpoints": ServeControlRoute.allCases.map { ["method": $0.method, "path": $0.path, "summary": $0.summary] },
            ])
        case .readClock:
            return .json(200, clockDocument())
        case .advanceClock:
            let body = try ServeControlInput(request, keys: route.bodyKeys)
            let seconds = try body.duration("advance")
            guard seconds > 0 else { throw ServeControlError("advance must move the clock forward (it never goes back: tokens issued would be dated in the future)") }
            guard clock.advance(by: TimeInterval(seconds)) else { throw Self.pastHorizon(clock) }
            return .json(200, clockDocument())
        case .readFaults:
            let targets = try self.targets(provider: query["provider"])
            var document: [String: Any] = [:]
            for target in targets {
                var faults: [[String: Any]] = target.world.server.activeFaults.map(Self.faultDocument)
                if target.world.server.isUnreachable { faults.insert(["kind": FaultKind.unreachable.rawValue], at: 0) }
                document[target.provider.rawValue] = faults
            }
            return .json(200, ["faults": document])
        case .injectFault:
            let body = try ServeControlInput(request, keys: route.bodyKeys)
            let target = try self.target(body.requiredText("provider"))
            let kindText = try body.requiredText("kind")
            guard let kind = FaultKind(rawValue: kindText) else {
                throw ServeControlError("kind \(kindText) is not a fault; one of: \(FaultKind.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            let path = try body.optionalText("path")
            if let path, !path.hasPrefix("/") { throw ServeControlError("path must start with / (e.g. /v1/products), not \(path)") }
            let times = try body.optionalCount("times")
            let clockAdvance = try body.optionalDuration("clockAdvance")
            if clockAdvance != nil && kind != .stall { throw ServeControlError("clockAdvance goes with kind stall only") }
            if let clockAdvance {
                // As `POST /clock`: forward only, and within the clock's horizon.
                guard clockAdvance > 0 else { throw ServeControlError("clockAdvance must move the clock forward (it never goes back: tokens issued would be dated in the future)") }
                guard clock.canAdvance(by: TimeInterval(clockAdvance)) else { throw Self.pastHorizon(clock) }
            }
            do {
                try target.world.inject(FaultSpec(kind: kind.rawValue, path: path, times: times, clockAdvance: clockAdvance))
            } catch {
                throw ServeControlError("\(error)")
            }
            var fault: [String: Any] = ["kind": kind.rawValue]
            if let path { fault["path"] = path }
            if let times { fault["times"] = times }
            if let clockAdvance { fault["clockAdvance"] = clockAdvance }
            return .json(200, ["provider": target.provider.rawValue, "injected": fault])
        case .clearFaults:
            let targets = try self.targets(provider: query["provider"])
            var failures: [String] = []
            for target in targets {
                do { try target.world.clearFaults() } catch { failures.append("\(target.provider.rawValue): \(error)") }
            }
            guard failures.isEmpty else { return ServeControlAnswer.failure(500, failures.joined(separator: "; ")) }
            return .json(200, ["cleared": targets.map(\.provider.rawValue)])
        case .serverOperation:
            let body = try ServeControlInput(request, keys: route.bodyKeys)
            let target = try self.target(body.requiredText("provider"))
            let operation = try body.requiredText("operation")
            do {
                try target.world.perform(operation)
            } catch {
                throw ServeControlError("\(error)")
            }
            return .json(200, ["provider": target.provider.rawValue, "performed": operation])
        case .readExchanges:
            let targets = try self.targets(provider: query["provider"])
            var since = 0
            if let text = query["since"] {
                guard let number = Int(text), number >= 0 else { throw ServeControlError("since takes an exchange number (0 or more), not \(text)") }
                since = number
            }
            var exchanges: [[String: Any]] = []
            // The host's one redactor, as the log's: every provider's secrets, whichever port a
            // secret was sent to, and no per-call cost that grows with what was issued.
            let scrub: (String) -> String = host.redacted
            for target in targets {
                for exchange in target.world.server.exchanges where exchange.index + 1 > since {
                    let transcript = scrub(Transcript.render(exchange, mask: scrub))
                    exchanges.append([
                        "provider": target.provider.rawValue,
                        "number": exchange.index + 1,
                        "method": scrub(exchange.request.method),
                        "path": scrub(exchange.request.path),
                        "status": exchange.response.status,
                        "fault": exchange.fault ?? NSNull(),
                        "transcript": transcript.split(separator: "\n", omittingEmptySubsequences: false).map(String.init),
                    ])
                }
            }
            return .json(200, ["exchanges": exchanges])
        }
    }

    private static func pastHorizon(_ clock: ServeClock) -> ServeControlError {
        ServeControlError("the clock goes no further than \(ISO8601DateFormatter().string(from: clock.horizon)), a hundred years after serve started, and this move would pass it; the clock did not move (restart serve for a fresh clock)")
    }

    private func clockDocument() -> [String: Any] {
        let now = clock.now
        return ["now": ISO8601DateFormatter().string(from: now), "unix": Int(now.timeIntervalSince1970)]
    }

    private static func faultDocument(_ fault: Fault) -> [String: Any] {
        var document: [String: Any] = ["kind": fault.kind.rawValue]
        if let path = fault.path { document["path"] = path }
        if let times = fault.times { document["times"] = times }
        return document
    }

    private typealias Target = (provider: Provider, world: FakeWorld, fixtureSecrets: [String])

    private func target(_ name: String) throws(ServeControlError) -> Target {
        let served = host.served
        guard let target = served.first(where: { $0.provider.rawValue == name }) else {
            throw ServeControlError("provider \(name) is not served; one of: \(served.map(\.provider.rawValue).joined(separator: ", "))")
        }
        return target
    }

    /// One provider, or every one when `provider` is nil.
    private func targets(provider: String?) throws(ServeControlError) -> [Target] {
        guard let provider else { return host.served }
        return [try target(provider)]
    }
}
