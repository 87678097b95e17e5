import Foundation
import Testing
import FlowCheckSDK
import FlowCheckTestSupport

/// The faults the fake server injects, delivered through a stub's `intercept` as the SDK would
/// meet them behind `URLSessionTransport` wrapped in `DeadlineTransport`.
///
/// A reset is what `URLSessionTransport` reports for one (measured in `URLSessionTransportTests`:
/// an RST at any point is URLError -1005); a response that never finishes waits until the
/// deadline cancels it; the rest are answers. Our transport follows no redirect, so a redirect
/// loop reaches the client as its first 302.
///
/// ```swift
/// let fixture = try MoltinFixture(deadline: NetworkFault.timeout)
/// fixture.server.intercept { request in try await fault.respond(to: request, success: body) }
/// let error = try await fault.error(clock: fixture.clock) { try await fixture.client.products() }
/// #expect((error as? OAuthError)?.code == fault.expectedCode)
/// ```
enum NetworkFault: String, CaseIterable, Sendable, CustomTestStringConvertible {
    /// The connection reset mid-response, as `URLSessionTransport` reports it.
    case connectionReset
    /// The same reset from a transport written outside the SDK: a raw `URLError`.
    case resetByForeignTransport
    /// A response that never finishes, ended by `DeadlineTransport`.
    case neverAnswers
    /// A proxy's 502 page.
    case badGatewayHTML
    /// A 504 with no body at all.
    case gatewayTimeoutEmpty
    /// A 200 whose JSON body was cut in half.
    case truncatedJSON
    /// A 302 to the very URL that was requested, for ever.
    case redirectLoop
    /// A 307 elsewhere, with a code in the `Location` that must not be quoted.
    case redirectElsewhere

    /// The request deadline the fixtures use.
    static let timeout: TimeInterval = 30

    /// A value in a redirect's `Location` that no error may repeat.
    static let locationSecret = "LOCATION-C0DE"

    var testDescription: String { rawValue }

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

    /// Answers `request` with the fault.
    /// - Parameter success: The body a healthy server would send; `.truncatedJSON` sends its
    ///   first half.
    func respond(to request: TransportRequest, success: String) async throws -> TransportResponse {
        switch self {
        case .connectionReset:
            throw OAuthError(code: .transport, message: "the network connection was lost (URLError -1005)")
        case .resetByForeignTransport:
            throw URLError(.networkConnectionLost, userInfo: [NSURLErrorFailingURLErrorKey: request.url])
        case .neverAnswers:
            return try await HeldTransport().send(request)
        case .badGatewayHTML:
            return .text(502, "<html><body><h1>502 Bad Gateway</h1><hr>nginx</body></html>")
        case .gatewayTimeoutEmpty:
            return TransportResponse(status: 504)
        case .truncatedJSON:
            let body = Data(success.utf8)
            return TransportResponse(status: 200, headers: ["Content-Type": "application/json"], body: body.prefix(body.count / 2))
        case .redirectLoop:
            return TransportResponse(status: 302, headers: ["Location": request.url.absoluteString, "Content-Type": "text/html"],
                                     body: Data("<a href=\"\(request.url.absoluteString)\">Found</a>".utf8))
        case .redirectElsewhere:
            return TransportResponse(status: 307, headers: ["Location": "https://elsewhere.example/collect?code=\(Self.locationSecret)"])
        }
    }

    /// Runs `operation` with the fault in place and returns what it threw (nil if nothing). For
    /// `.neverAnswers`, moves `clock` past the deadline once the request is waiting on it: the
    /// operation's first request must be the faulted one, so the first sleeper is its deadline.
    func error(clock: ManualClock, of operation: @escaping @Sendable () async throws -> Void) async throws -> (any Error)? {
        let task = Task { try await operation() }
        if self == .neverAnswers {
            try await clock.waitForSleepers(count: 1)
            clock.advance(by: Self.timeout + 1)
        }
        do {
            try await task.value
            return nil
        } catch {
            return error
        }
    }

    /// Checks `error` against the fault: code, status, message, and nothing quoted that must not
    /// be (the redirect's `Location`, the HTML page, `secrets`).
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
        for text in secrets + [Self.locationSecret, "<html", "elsewhere.example", "127.0.0.1"] {
            #expect(!error.description.contains(text), "leaked \(text)", sourceLocation: sourceLocation)
        }
    }
}
