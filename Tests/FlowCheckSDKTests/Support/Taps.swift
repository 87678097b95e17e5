import Foundation
import FlowCheckFakeServer
import FlowCheckSDK
import FlowCheckTestSupport

/// Sits between the SDK and a fake's transport: counts what the SDK sends and lets a test act
/// before a request goes on (hold it at a gate, or fail it as a transport written outside the
/// SDK would). It never answers for the fake.
///
/// ```swift
/// world.tap.beforeSend { request in
///     if request.url.path == FakeMoltin.tokenPath { try await gate.wait() }
/// }
/// ```
final class TransportTap: HTTPTransport, @unchecked Sendable {
    typealias Hook = @Sendable (TransportRequest) async throws -> Void

    private let base: any HTTPTransport
    private let lock = NSLock()
    private var hook: Hook?
    private var sent: [TransportRequest] = []

    init(base: any HTTPTransport) {
        self.base = base
    }

    /// Runs `hook` before every later request goes on; a throw ends the request with that error.
    func beforeSend(_ hook: Hook?) {
        lock.lock()
        self.hook = hook
        lock.unlock()
    }

    private func record(_ request: TransportRequest) -> Hook? {
        lock.lock()
        defer { lock.unlock() }
        sent.append(request)
        return hook
    }

    /// Every request the SDK handed over, in order, exactly as handed over.
    var requests: [TransportRequest] {
        lock.lock()
        defer { lock.unlock() }
        return sent
    }

    func send(_ request: TransportRequest) async throws -> TransportResponse {
        let hook = record(request)
        try await hook?(request)
        return try await base.send(request)
    }
}

/// A transport written outside the SDK: it reports a lost connection as a raw `URLError`, not
/// as `OAuthError`, so the SDK must wrap it without quoting it.
struct ForeignTransport: HTTPTransport {
    let base: any HTTPTransport

    func send(_ request: TransportRequest) async throws -> TransportResponse {
        do {
            return try await base.send(request)
        } catch let error as OAuthError where error.code == .transport {
            throw URLError(.networkConnectionLost, userInfo: [NSURLErrorFailingURLErrorKey: request.url])
        }
    }
}

/// A fake's responder with a slot for a raw wire answer the fakes never give (a 200 with no
/// body, a server that echoes secrets): a test sets a closure that answers the requests it
/// picks; everything else goes to the fake, recorded as usual.
final class RawAnswers: HTTPResponder, @unchecked Sendable {
    typealias Answer = @Sendable (HTTPRequest) -> HTTPResponse?

    private let fake: any HTTPResponder
    private let lock = NSLock()
    private var answer: Answer?
    private var answered = 0

    /// How many requests the slot answered itself (the fake records only the ones it answers).
    var answeredCount: Int {
        lock.lock()
        defer { lock.unlock() }
        return answered
    }

    init(over fake: any HTTPResponder) {
        self.fake = fake
    }

    /// Answers the requests `answer` returns a response for; nil restores the fake.
    func set(_ answer: Answer?) {
        lock.lock()
        self.answer = answer
        lock.unlock()
    }

    /// Answers the next request to `path` with `response`, once; the fake answers the rest.
    func answerOnce(path: String, with response: @escaping @Sendable (HTTPRequest) -> HTTPResponse) {
        let spent = Counter()
        set { request in
            guard request.path == path, spent.increment() == 1 else { return nil }
            return response(request)
        }
    }

    func respond(to request: HTTPRequest) -> HTTPResponse {
        lock.lock()
        let answer = self.answer
        lock.unlock()
        if let response = answer?(request) {
            lock.lock()
            answered += 1
            lock.unlock()
            return response
        }
        return fake.respond(to: request)
    }
}

/// Calls a settable closure for every exchange a fake records, on the thread that handles it,
/// before the SDK sees the response.
final class ExchangeWatch: @unchecked Sendable {
    typealias Watcher = @Sendable (RecordedExchange) -> Void

    private let lock = NSLock()
    private var watcher: Watcher?

    func set(_ watcher: Watcher?) {
        lock.lock()
        self.watcher = watcher
        lock.unlock()
    }

    func observe(_ exchange: RecordedExchange) {
        lock.lock()
        let watcher = self.watcher
        lock.unlock()
        watcher?(exchange)
    }
}

/// What a world's requests go through, for a mode and whether raw answers are wanted.
struct WorldWiring {
    let connection: FakeConnection
    let tap: TransportTap
    let raw: RawAnswers?
    let transport: any HTTPTransport
    /// Opened when a request starts stalling (`FaultKind.stall`), by either mode.
    let stalled: Gate

    /// Connects to `server`: the fake itself, or (`rawAnswers`) the fake behind a `RawAnswers`
    /// slot, which over loopback is served by a server of its own (transport faults then act
    /// socket-free only). `deadline` puts a `DeadlineTransport` on `clock` in front.
    static func connect(
        _ server: FakeProviderServer, mode: FakeTransportMode, rawAnswers: Bool, stalled: Gate,
        clock: ManualClock, deadline: TimeInterval?, foreign: Bool = false
    ) throws -> WorldWiring {
        let raw = rawAnswers ? RawAnswers(over: server.responder) : nil
        let connection: FakeConnection
        switch (raw, mode) {
        case (let raw?, .socketFree):
            // The slot in front of the fake's chain; unreachable and stalls act as without it.
            let transport = ResponderTransport(responder: raw, isUnreachable: { server.isUnreachable }, onStall: { _ in stalled.open() })
            connection = FakeConnection(mode: mode, transport: transport, baseURL: FakeConnection.socketFreeBaseURL)
        case (let raw?, .loopback):
            connection = try FakeConnection.serving(raw, mode: mode)
        case (nil, _):
            connection = try server.connect(mode, onStall: { _ in stalled.open() })
        }
        let tap = TransportTap(base: foreign ? ForeignTransport(base: connection.transport) : connection.transport)
        let transport: any HTTPTransport = deadline.map { DeadlineTransport(base: tap, clock: clock, timeout: $0) } ?? tap
        return WorldWiring(connection: connection, tap: tap, raw: raw, transport: transport, stalled: stalled)
    }
}

extension HTTPRequest {
    /// The token of an `Authorization: Bearer` header.
    var bearerToken: String? {
        headers["Authorization"].flatMap { $0.hasPrefix("Bearer ") ? String($0.dropFirst(7)) : nil }
    }

    /// The body as UTF-8 text.
    var bodyText: String { String(decoding: body, as: UTF8.self) }

    /// The body's top-level JSON fields as strings.
    var jsonObject: [String: String]? { jsonFields() }

    /// Everything the request carries, as text: target, headers and body.
    var allText: String {
        target + "\n" + headers.pairs.map { "\($0.name): \($0.value)" }.joined(separator: "\n") + "\n" + bodyText
    }

    /// Header names in order, without the ones a transport adds on the wire (`Host` from ours,
    /// and what URLSession adds over loopback).
    var sdkHeaderNames: [String] {
        let added: Set<String> = ["host", "user-agent", "accept-language", "accept-encoding", "content-length", "connection"]
        return headers.pairs.map(\.name).filter { !added.contains($0.lowercased()) }
    }
}

extension HTTPResponse {
    /// A JSON response from raw text, for answers the fakes never give.
    static func rawJSON(_ status: Int, _ text: String) -> HTTPResponse {
        HTTPResponse(status: status, headers: ["Content-Type": "application/json"], body: Data(text.utf8))
    }
}

extension URL {
    /// `self` with its query replaced by `parameters`, form-encoded in order.
    func replacingQuery(_ parameters: [(String, String)]) -> URL {
        var text = absoluteString
        if let index = text.firstIndex(of: "?") {
            text = String(text[..<index])
        }
        return URL(string: text + (parameters.isEmpty ? "" : "?" + FlowCheckSDK.FormURLEncoding.encode(parameters)))!
    }

    /// The decoded query parameters, in order.
    var queryParameters: [(String, String)] {
        FlowCheckSDK.FormURLEncoding.decode(URLComponents(url: self, resolvingAgainstBaseURL: false)?.percentEncodedQuery ?? "") ?? []
    }

    /// The first query parameter called `name`.
    func queryParameter(_ name: String) -> String? {
        queryParameters.first { $0.0 == name }?.1
    }
}

/// Runs `body` and returns the `OAuthError` it throws, or nil if it throws nothing or another error.
func oauthError<T>(_ body: () async throws -> T) async -> OAuthError? {
    do {
        _ = try await body()
        return nil
    } catch let error as OAuthError {
        return error
    } catch {
        return nil
    }
}

/// Counts calls from any thread; for token-change callbacks.
final class CallCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0

    var value: Int {
        lock.lock()
        defer { lock.unlock() }
        return count
    }

    @discardableResult
    func increment() -> Int {
        lock.lock()
        defer { lock.unlock() }
        count += 1
        return count
    }

    /// A callback that counts.
    var callback: @Sendable () -> Void {
        { [self] in self.increment() }
    }
}

extension TransportResponse {
    /// A JSON response from raw text, for a `HeldTransport` answer.
    static func json(_ status: Int, _ text: String) -> TransportResponse {
        TransportResponse(status: status, headers: ["Content-Type": "application/json"], body: Data(text.utf8))
    }
}

extension TransportRequest {
    /// The body as UTF-8 text, nil without a body.
    var bodyText: String? { body.map { String(decoding: $0, as: UTF8.self) } }

    /// The token of an `Authorization: Bearer` header.
    var bearerToken: String? {
        header("Authorization").flatMap { $0.hasPrefix("Bearer ") ? String($0.dropFirst(7)) : nil }
    }
}
