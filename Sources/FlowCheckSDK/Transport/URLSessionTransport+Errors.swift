import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension URLSessionTransport {
    /// Turns a URLSession failure into `OAuthError` `.transport` (or `CancellationError`).
    ///
    /// The message is chosen from the error code only: `URLError` descriptions and user info can
    /// carry the failing URL, and a URL query may hold a code or token.
    static func mapError(_ error: any Error) -> any Error {
        let nsError = error as NSError
        guard nsError.domain == NSURLErrorDomain else {
            return OAuthError.transport("network failure (\(nsError.domain) \(nsError.code))")
        }
        let code = URLError.Code(rawValue: nsError.code)
        let reason: String
        switch code {
        case .cancelled:
            return CancellationError()
        case .timedOut:
            reason = "the request timed out"
        case .cannotConnectToHost:
            reason = "could not connect to the server"
        case .cannotFindHost, .dnsLookupFailed:
            reason = "could not find the server"
        case .notConnectedToInternet:
            reason = "not connected to the network"
        case .networkConnectionLost:
            reason = "the network connection was lost"
        case .secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate,
             .serverCertificateNotYetValid, .serverCertificateHasUnknownRoot, .clientCertificateRejected,
             .clientCertificateRequired:
            reason = "the secure connection failed"
        case .badServerResponse, .cannotParseResponse:
            reason = "the server's answer was not valid HTTP"
        default:
            reason = "network failure"
        }
        return OAuthError.transport("\(reason) (URLError \(nsError.code))")
    }
}
