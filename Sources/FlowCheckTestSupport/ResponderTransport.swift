import Foundation
import FlowCheckFakeServer
import FlowCheckSDK

/// An `HTTPTransport` with no socket: each request is handed to an `HTTPResponder` (a fake's
/// ``FakeProviderServer/responder``, or any other) and its answer comes back as the SDK would
/// receive it from `URLSessionTransport` over loopback.
///
/// The `TransportRequest` becomes an `HTTPRequest` as a client would put it on the wire: the
/// origin-form target (path and query, as encoded), a `Host` header first when the request has
/// none (fakes that build absolute URLs read it), then the request's own headers in order, and
/// the body. The `HTTPResponse` becomes a `TransportResponse` with every status returned,
/// redirects included (`URLSessionTransport` follows none). What only a socket can do is
/// reproduced as a socket-side client would see it:
///
/// - unreachable (`isUnreachable()` true): `OAuthError` `.transport` "could not connect to the
///   server (URLError -1004)", and the responder is not asked;
/// - a ``FaultKind/connectionReset`` answer (the fault's planned response): "the network
///   connection was lost (URLError -1005)", as the reset mid-body reaches `URLSessionTransport`;
/// - a ``FaultKind/stall`` answer (status 0): no answer at all; the send waits until its task
///   is cancelled (a `DeadlineTransport` deadline) and then throws `CancellationError`, or until
///   `stallLimit` of real time passes and then throws "the request timed out (URLError -1001)",
///   as `URLSessionTransport`'s own timeout would. `onStall` is told when the stall begins,
///   like `FakeProviderServer`'s `stallObserver` over loopback.
///
/// A task cancelled before sending gets `CancellationError` and the responder is not asked.
///
/// ```swift
/// let moltin = FakeMoltin(fixture: MoltinFixture(clients: [.init(id: "id", secret: "secret")]))
/// let server = FakeProviderServer(provider: moltin, now: { clock.now })
/// let transport = ResponderTransport(server: server)
/// let client = MoltinClient(configuration: try MoltinConfiguration(baseURL: URL(string: "http://localhost")!),
///                           transport: transport, store: InMemoryTokenStore(), clock: clock)
/// server.inject(Fault(kind: .serverError, path: FakeMoltin.productsPath, times: 1))
/// ```
public struct ResponderTransport: HTTPTransport {
    private let responder: any HTTPResponder
    private let isUnreachable: @Sendable () -> Bool
    private let stallLimit: Duration
    private let onStall: (@Sendable (TransportRequest) -> Void)?

    /// Creates a transport that answers every request with `responder`.
    /// - Parameters:
    ///   - responder: What answers; called synchronously on the sending task.
    ///   - isUnreachable: Asked before every request; true refuses it as a closed port would.
    ///   - stallLimit: The longest real time a stalled request waits for its cancellation.
    ///   - onStall: Told of every request that starts stalling.
    public init(
        responder: any HTTPResponder,
        isUnreachable: @escaping @Sendable () -> Bool = { false },
        stallLimit: Duration = HangBound.standard,
        onStall: (@Sendable (TransportRequest) -> Void)? = nil
    ) {
        self.responder = responder
        self.isUnreachable = isUnreachable
        self.stallLimit = stallLimit
        self.onStall = onStall
    }

    /// Creates a transport to `server`'s socket-free responder chain (recording, faults,
    /// provider) that refuses requests while `.unreachable` is injected. The server need not be
    /// started.
    /// - Parameters:
    ///   - server: The fake world to answer.
    ///   - stallLimit: The longest real time a stalled request waits for its cancellation.
    ///   - onStall: Told of every request that starts stalling under ``FaultKind/stall``.
    public init(server: FakeProviderServer, stallLimit: Duration = HangBound.standard, onStall: (@Sendable (TransportRequest) -> Void)? = nil) {
        self.init(responder: server.responder, isUnreachable: { server.isUnreachable }, stallLimit: stallLimit, onStall: onStall)
    }

    /// Answers `request` through the responder.
    /// - Parameter request: The request to send.
    /// - Returns: The responder's answer, for any HTTP status.
    /// - Throws: `OAuthError` `.transport` for unreachable, reset and a stall past
    ///   `stallLimit`; `CancellationError` when the task was cancelled before sending or while
    ///   stalled.
    public func send(_ request: TransportRequest) async throws -> TransportResponse {
        try Task.checkCancellation()
        guard !isUnreachable() else {
            throw OAuthError(code: .transport, message: "could not connect to the server (URLError -1004)")
        }
        let wire = Self.wireRequest(for: request)
        let answer = responder.respond(to: wire)
        if answer.status == 0 {
            onStall?(request)
            do {
                // Nobody resumes this wait: it ends by cancellation or by the bound.
                let _: Void = try await boundedWait("ResponderTransport: stalled request", within: stallLimit) { _ in }
            } catch is WaitTimedOut {
                throw OAuthError(code: .transport, message: "the request timed out (URLError -1001)")
            }
        }
        if answer == FaultKind.connectionReset.response(for: wire) {
            throw OAuthError(code: .transport, message: "the network connection was lost (URLError -1005)")
        }
        return Self.transportResponse(for: answer)
    }

    /// The request as it would arrive over a socket.
    static func wireRequest(for request: TransportRequest) -> HTTPRequest {
        let components = URLComponents(url: request.url, resolvingAgainstBaseURL: false)
        var target = components?.percentEncodedPath ?? "/"
        if target.isEmpty { target = "/" }
        if let query = components?.percentEncodedQuery {
            target += "?" + query
        }
        var headers = HTTPHeaders()
        if request.header("Host") == nil, let host = request.url.host {
            headers.add("Host", request.url.port.map { "\(host):\($0)" } ?? host)
        }
        for (name, value) in request.headers {
            headers.add(name, value)
        }
        return HTTPRequest(method: request.method, target: target, headers: headers, body: request.body ?? Data())
    }

    /// The response as `URLSessionTransport` hands it over: repeated fields joined by ", ".
    static func transportResponse(for response: HTTPResponse) -> TransportResponse {
        var headers: [String: String] = [:]
        var spelling: [String: String] = [:]
        for field in response.headers {
            let key = field.name.lowercased()
            if let name = spelling[key], let existing = headers[name] {
                headers[name] = existing + ", " + field.value
            } else {
                spelling[key] = field.name
                headers[field.name] = field.value
            }
        }
        return TransportResponse(status: response.status, headers: headers, body: response.body)
    }
}
