import Foundation
import Testing
import FlowCheckFakeServer
import FlowCheckSDK
import FlowCheckTestSupport

/// The network faults an SDK must survive, delivered by the real fake: its own fault kinds
/// (reset, stall, HTML 502, truncated JSON, redirect loop) on the faulted path for one request,
/// and two raw wire answers no fake gives (a 504 with no body, a 307 elsewhere with a code in
/// its `Location`). The SDK sees them through `ResponderTransport` or `URLSessionTransport`,
/// wrapped in `DeadlineTransport`, as the harness wires it.
///
/// A reset is what `URLSessionTransport` reports for one (measured in `URLSessionTransportTests`:
/// an RST at any point is URLError -1005); a response that never finishes waits until the
/// deadline cancels it; the rest are answers. Our transport follows no redirect, so a redirect
/// loop reaches the client as its first 302.
///
/// ```swift
/// let world = try MoltinWorld(mode: mode, deadline: NetworkFault.timeout, rawAnswers: fault.needsRawAnswer)
/// fault.arm(world.server, raw: world.raw, path: FakeMoltin.productsPath)
/// let error = try await fault.error(clock: world.clock, stalled: world.wiring.stalled) { _ = try await world.client.products() }
/// fault.check(error, secrets: [MoltinWorld.clientSecret])
/// ```
enum NetworkFault: String, CaseIterable, Sendable, CustomTestStringConvertible {
    /// The connection reset mid-response (`FaultKind.connectionReset`).
    case connectionReset
    /// The same reset from a transport written outside the SDK: a raw `URLError`.
    case resetByForeignTransport
    /// A response that never comes (`FaultKind.stall`), ended by `DeadlineTransport`.
    case neverAnswers
    /// A proxy's 502 page (`FaultKind.htmlServerError`).
    case badGatewayHTML
    /// A 504 with no body at all: a raw wire answer.
    case gatewayTimeoutEmpty
    /// A 200 whose JSON body stops mid-document (`FaultKind.truncatedJSON`).
    case truncatedJSON
    /// A 302 to the very URL that was requested (`FaultKind.redirectLoop`).
    case redirectLoop
    /// A 307 elsewhere, with a code in the `Location` that must not be quoted: a raw wire answer.
    case redirectElsewhere

    /// The request deadline the worlds use.
    static let timeout: TimeInterval = 30

    /// A value in a redirect's `Location` that no error may repeat.
    static let locationSecret = "LOCATION-C0DE"

    var testDescription: String { rawValue }

    /// The fake's own fault; nil for the raw wire answers.
    var kind: FaultKind? {
        switch self {
        case .connectionReset, .resetByForeignTransport: .connectionReset
        case .neverAnswers: .stall
        case .badGatewayHTML: .htmlServerError
        case .truncatedJSON: .truncatedJSON
        case .redirectLoop: .redirectLoop
        case .gatewayTimeoutEmpty, .redirectElsewhere: nil
        }
    }

    /// Whether the world needs a `RawAnswers` slot for this fault.
    var needsRawAnswer: Bool { kind == nil }

    /// Whether the world's transport is one written outside the SDK.
    var isForeign: Bool { self == .resetByForeignTransport }

    /// The error class the SDK must report.
    var expectedCode: OAuthError.Code {
        switch self {
        case .connectionReset, .resetByForeignTransport, .neverAnswers: .transport
        case .badGatewayHTML, .gatewayTimeoutEmpty: .serverError
        case .truncatedJSON, .redirectLoop, .redirectElsewhere: .invalidResponse
        }
    }

    /// The exact message, where the SDK writes it itself.
    var expectedMessage: String? {
        switch self {
        case .neverAnswers: "the server did not answer within 30 s"
        case .redirectLoop, .redirectElsewhere: "unexpected redirect"
        default: nil
        }
    }

    /// The HTTP status the error carries: the fault's answer, or none when there was no answer.
    var expectedStatus: Int? {
        switch self {
        case .connectionReset, .resetByForeignTransport, .neverAnswers: nil
        case .badGatewayHTML: 502
        case .gatewayTimeoutEmpty: 504
        case .truncatedJSON: 200
        case .redirectLoop: 302
        case .redirectElsewhere: 307
        }
    }

    /// Arms the fault for the next request to `path`, once.
    func arm(_ server: FakeProviderServer, raw: RawAnswers?, path: String, sourceLocation: SourceLocation = #_sourceLocation) {
        if let kind {
            server.inject(Fault(kind: kind, path: path, times: 1))
            return
        }
        guard let raw else {
            Issue.record("\(self) needs a world made with rawAnswers: true", sourceLocation: sourceLocation)
            return
        }
        switch self {
        case .gatewayTimeoutEmpty:
            raw.answerOnce(path: path) { _ in HTTPResponse(status: 504) }
        default:
            raw.answerOnce(path: path) { _ in
                HTTPResponse(status: 307, headers: ["Location": "https://elsewhere.example/collect?code=\(Self.locationSecret)"])
            }
        }
    }

    /// Requests that reached the server side so far: recorded by the fake, or answered raw.
    static func wireCount(_ server: FakeProviderServer, raw: RawAnswers?) -> Int {
        server.exchanges.count + (raw?.answeredCount ?? 0)
    }

    /// Runs `operation` with the fault armed and returns what it threw (nil if nothing). For
    /// `.neverAnswers`, moves `clock` past the deadline once the request's deadline is
    /// registered and the fake has started stalling it (`stalled`): the operation's first
    /// request must be the faulted one, so the first sleeper is its deadline.
    ///
    /// Every wait is bounded: an operation that does not end (a `DeadlineTransport` whose
    /// deadline no longer fires leaves the fake's stall holding) is cancelled and this throws
    /// ``WaitTimedOut`` naming the fault, instead of hanging the run.
    func error(clock: ManualClock, stalled: Gate, of operation: @escaping @Sendable () async throws -> Void) async throws -> (any Error)? {
        let task = Task { try await operation() }
        if self == .neverAnswers {
            do {
                try await clock.waitForSleepers(count: 1)
                try await stalled.wait()
            } catch {
                task.cancel()
                throw error
            }
            clock.advance(by: Self.timeout + 1)
        }
        do {
            try await boundedValue(of: task, waitingFor: "the operation under fault \(self)")
            return nil
        } catch let timedOut as WaitTimedOut {
            throw timedOut
        } catch {
            return error
        }
    }

    /// Checks `error` against the fault: code, status, message, and nothing quoted that must not
    /// be (the redirect's `Location`, the HTML page, the fake's address, `secrets`).
    func check(_ error: (any Error)?, secrets: [String], sourceLocation: SourceLocation = #_sourceLocation) {
        guard let error = error as? OAuthError else {
            Issue.record("expected an OAuthError, got \(String(describing: error))", sourceLocation: sourceLocation)
            return
        }
        #expect(error.code == expectedCode, sourceLocation: sourceLocation)
        #expect(error.status == expectedStatus, sourceLocation: sourceLocation)
        if let expectedMessage {
            #expect(error.message == expectedMessage, sourceLocation: sourceLocation)
        }
        for text in secrets + [Self.locationSecret, "<html", "elsewhere.example", "127.0.0.1", "localhost"] {
            #expect(!error.description.contains(text), "leaked \(text)", sourceLocation: sourceLocation)
        }
    }
}
