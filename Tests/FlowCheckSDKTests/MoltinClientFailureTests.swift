import Foundation
import Testing
import FlowCheckSDK
import FlowCheckTestSupport

/// MLT-NETFAIL: unreachable server, 500, non-JSON: an error value, no crash, store untouched.
@Suite("MoltinClient failures", .timeLimit(.minutes(5)))
struct MoltinClientFailureTests {
    enum Failure: String, CaseIterable, Sendable {
        case unreachable, serverError, notJSON, htmlError, emptyBody, foreignTransportError

        var expectedCode: OAuthError.Code {
            switch self {
            case .unreachable, .foreignTransportError: .transport
            case .serverError: .serverError
            case .notJSON, .emptyBody: .invalidResponse
            case .htmlError: .serverError
            }
        }

        func respond() throws -> TransportResponse {
            switch self {
            case .unreachable:
                throw OAuthError(code: .transport, message: "could not connect to the server")
            case .foreignTransportError:
                throw URLError(.cannotConnectToHost)
            case .serverError:
                return .json(500, #"{"status":false,"error":"Internal error"}"#)
            case .notJSON:
                return .text(200, "<html>hello</html>")
            case .htmlError:
                return .text(503, "<html>Service Unavailable</html>")
            case .emptyBody:
                return TransportResponse(status: 200)
            }
        }
    }

    enum Operation: String, CaseIterable, Sendable {
        case auth, refresh, products, productsAfterExpiry
    }

    @Test("every failure is an error value and leaves the store untouched",
          arguments: Failure.allCases, Operation.allCases)
    func failureLeavesStore(_ failure: Failure, _ operation: Operation) async throws {
        let fixture = try MoltinFixture()
        try await fixture.authenticate()
        let before = try #require(try fixture.storedBytes)
        if operation == .productsAfterExpiry {
            fixture.clock.advance(by: 61 * 60)
        }
        fixture.server.intercept { _ in try failure.respond() }

        let error = await #expect(throws: OAuthError.self) {
            switch operation {
            case .auth: try await fixture.authenticate()
            case .refresh: try await fixture.client.refreshToken()
            case .products, .productsAfterExpiry: _ = try await fixture.client.products()
            }
        }
        #expect(error?.code == failure.expectedCode)
        #expect(try fixture.storedBytes == before)
        // One attempt only: transient failures are not retried in a loop.
        #expect(fixture.server.requests.count == 2)
    }

    @Test("a 5xx carries its status and the server's message")
    func serverErrorDetails() async throws {
        let fixture = try MoltinFixture()
        fixture.server.intercept { _ in .json(502, #"{"status":false,"error":"Bad gateway"}"#) }
        let error = await #expect(throws: OAuthError.self) { try await fixture.authenticate() }
        #expect(error == OAuthError(code: .serverError, message: "Bad gateway", status: 502))
    }

    @Test("a foreign transport error becomes .transport without its description")
    func foreignErrorIsWrapped() async throws {
        let fixture = try MoltinFixture()
        fixture.server.intercept { _ in
            throw URLError(.timedOut, userInfo: [NSURLErrorFailingURLErrorKey: URL(string: "http://127.0.0.1/?code=SECRET")!])
        }
        let error = await #expect(throws: OAuthError.self) { try await fixture.client.products() }
        #expect(error?.code == .transport)
        #expect(error?.description.contains("SECRET") == false)
    }

    @Test("cancellation passes through as CancellationError")
    func cancellation() async throws {
        let fixture = try MoltinFixture()
        fixture.server.intercept { _ in throw CancellationError() }
        await #expect(throws: CancellationError.self) { try await fixture.client.products() }
    }
}
