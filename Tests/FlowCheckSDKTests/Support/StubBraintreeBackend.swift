import Foundation
import FlowCheckSDK

/// An in-test stand-in for the merchant's own backend in seed 002's client-side flow, reached
/// through `HTTPTransport` (no sockets).
///
/// `GET /braintree/connect-url` answers `{"connectURL": ...}` (Braintree's authorize page). The
/// rest of the flow happens between the merchant's browser, Braintree and this backend, never on
/// the device, so it is played by `merchantAuthorizes` and `merchantDeclines`: the backend takes
/// the code, creates the access token with its client secret (kept here, in `createdTokens`), and
/// returns the app URL the backend would redirect to. `intercept` lets a test answer a request
/// itself.
///
/// ```swift
/// let backend = StubBraintreeBackend()
/// try await connect.connect()                                     // browser opens connectURL
/// let back = backend.merchantAuthorizes(returnURL: "examplescheme://braintree")
/// #expect(await connect.handleOpenURL(back))
/// ```
final class StubBraintreeBackend: HTTPTransport, @unchecked Sendable {
    static let endpoint = URL(string: "http://127.0.0.1:9201/braintree/connect-url")!
    static let connectURL = "https://sandbox.braintreegateway.com/oauth/connect?client_id=client_id%24sandbox%24abc"
        + "&redirect_uri=https%3A%2F%2Fmerchant.example.com%2Fbraintree%2Foauth&scope=read_write&state=bk-state-1"
    /// The backend's client secret; it must never appear in anything the device sends or receives.
    static let clientSecret = "client_secret$sandbox$9f2c41d7"
    static let merchantID = "MERCH-BT-1"

    typealias Interceptor = @Sendable (TransportRequest) async throws -> TransportResponse?

    private let lock = NSLock()
    private var log: [TransportRequest] = []
    private var tokens: [String: String] = [:]
    private var interceptor: Interceptor?

    // MARK: The merchant's browser and the backend, off the device

    /// The merchant authorizes on Braintree; the backend exchanges the code with its client
    /// secret, keeps the token, and redirects to `returnURL + "/connected?merchant_id=.."`.
    func merchantAuthorizes(returnURL: String, merchantID: String = StubBraintreeBackend.merchantID) -> URL {
        locked {
            tokens[merchantID] = "access_token$sandbox$\(merchantID)$\(tokens.count + 1)"
        }
        return URL(string: returnURL + "/connected?" + FormURLEncoding.encode([("merchant_id", merchantID)]))!
    }

    /// The merchant declines; the backend redirects to `returnURL + "/failed?error=access_denied"`.
    func merchantDeclines(returnURL: String) -> URL {
        URL(string: returnURL + "/failed?" + FormURLEncoding.encode([
            ("error", "access_denied"), ("error_description", "The merchant declined"),
        ]))!
    }

    /// Access tokens the backend created, by merchant: they stay here.
    var createdTokens: [String: String] { locked { tokens } }

    // MARK: Knobs and observations

    func intercept(_ interceptor: Interceptor?) {
        locked { self.interceptor = interceptor }
    }

    var requests: [TransportRequest] { locked { log } }

    // MARK: HTTPTransport

    func send(_ request: TransportRequest) async throws -> TransportResponse {
        let interceptor = locked { () -> Interceptor? in
            log.append(request)
            return self.interceptor
        }
        if let interceptor, let response = try await interceptor(request) {
            return response
        }
        guard request.method == "GET", request.url == Self.endpoint else {
            return .json(404, #"{"error":"not_found"}"#)
        }
        guard request.header("Accept") == "application/json" else {
            return .json(406, #"{"error":"not_acceptable"}"#)
        }
        return .json(200, #"{"connectURL":"\#(Self.connectURL)"}"#)
    }

    private func locked<T>(_ body: () throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }
}
