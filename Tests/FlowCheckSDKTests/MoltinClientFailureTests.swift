import Foundation
import FlowCheckTestLanes
import Testing
import FlowCheckFakeServer
import FlowCheckSDK
import FlowCheckTestSupport

/// MLT-NETFAIL: unreachable server, 500, non-JSON: an error value, no crash, store untouched.
@Suite("MoltinClient failures", .integration, .timeLimit(.minutes(20)))
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

        /// Arms the failure on `world` for every later request: the fake's own fault where it
        /// has one, a raw wire answer for a 200 with no body (which no fake gives), and a
        /// transport written outside the SDK for a foreign error.
        func arm(on world: MoltinWorld) {
            switch self {
            case .unreachable: world.server.inject(Fault(kind: .unreachable))
            case .serverError: world.server.inject(Fault(kind: .serverError))
            case .notJSON: world.server.inject(Fault(kind: .nonJSONBody))
            case .htmlError: world.server.inject(Fault(kind: .htmlServerError))
            case .emptyBody: world.raw?.set { _ in HTTPResponse(status: 200) }
            case .foreignTransportError: world.tap.beforeSend { _ in throw URLError(.cannotConnectToHost) }
            }
        }
    }

    enum Operation: String, CaseIterable, Sendable {
        case auth, refresh, products, productsAfterExpiry
    }

    @Test("every failure is an error value and leaves the store untouched",
          arguments: Failure.allCases, Operation.allCases)
    func failureLeavesStore(_ failure: Failure, _ operation: Operation) async throws {
        let world = try MoltinWorld(rawAnswers: failure == .emptyBody)
        try await world.authenticate()
        let before = try #require(try world.storedBytes)
        if operation == .productsAfterExpiry {
            world.clock.advance(by: 61 * 60)
        }
        failure.arm(on: world)

        let error = await #expect(throws: OAuthError.self) {
            switch operation {
            case .auth: try await world.authenticate()
            case .refresh: try await world.client.refreshToken()
            case .products, .productsAfterExpiry: _ = try await world.client.products()
            }
        }
        #expect(error?.code == failure.expectedCode)
        #expect(try world.storedBytes == before)
        // One attempt only: transient failures are not retried in a loop.
        #expect(world.tap.requests.count == 2)
    }

    @Test("a 5xx carries its status and the server's message", arguments: FakeTransportMode.allCases)
    func serverErrorDetails(_ mode: FakeTransportMode) async throws {
        let world = try MoltinWorld(mode: mode)
        world.server.inject(Fault(kind: .serverError, path: FakeMoltin.tokenPath, times: 1))
        let error = await #expect(throws: OAuthError.self) { try await world.authenticate() }
        #expect(error == OAuthError(code: .serverError, message: "Internal Server Error", status: 500))
    }

    @Test("a 429 on the renewal is transient: one token request, no fallback Auth, the store untouched")
    func rateLimitedRenewalDoesNotFallBack() async throws {
        let world = try MoltinWorld()
        try await world.authenticate()
        let before = try #require(try world.storedBytes)
        world.clock.advance(by: 61 * 60)
        world.server.inject(Fault(kind: .rateLimited, path: FakeMoltin.tokenPath))

        let error = await #expect(throws: OAuthError.self) { _ = try await world.client.products() }
        #expect(error?.code == .httpStatus)
        #expect(error?.status == 429)
        #expect(try world.storedBytes == before)
        // The Auth, then one refresh: a refused grant would add a client_credentials fallback.
        #expect(world.tap.requests.count == 2)
    }

    @Test("a foreign transport error becomes .transport without its description")
    func foreignErrorIsWrapped() async throws {
        let world = try MoltinWorld()
        world.tap.beforeSend { _ in
            throw URLError(.timedOut, userInfo: [NSURLErrorFailingURLErrorKey: URL(string: "http://127.0.0.1/?code=SECRET")!])
        }
        let error = await #expect(throws: OAuthError.self) { try await world.client.products() }
        #expect(error?.code == .transport)
        #expect(error?.description.contains("SECRET") == false)
    }

    @Test("cancellation passes through as CancellationError")
    func cancellation() async throws {
        let world = try MoltinWorld()
        world.tap.beforeSend { _ in throw CancellationError() }
        await #expect(throws: CancellationError.self) { try await world.client.products() }
    }
}
