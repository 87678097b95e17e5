import Foundation
import FlowCheckTestLanes
import Testing
import FlowCheckFakeServer
import FlowCheckSDK
import FlowCheckTestSupport

/// The fake server's faults against every Moltin call, socket-free and over loopback: a typed
/// error, one request (no retry loop, no redirect followed), the stored token byte for byte as
/// it was, and usable once the fault clears.
@Suite("MoltinClient under network faults", .integration, .timeLimit(.minutes(20)))
struct MoltinClientFaultTests {
    enum Operation: String, CaseIterable, Sendable, CustomTestStringConvertible {
        /// `auth` over an earlier good token.
        case auth
        /// The explicit `refreshToken`.
        case refreshToken
        /// `products` with a fresh token: the fault hits the products request.
        case products
        /// `products` with an expired token: the fault hits the renewal before it.
        case productsAfterExpiry

        var testDescription: String { rawValue }

        var faultedPath: String { self == .products ? FakeMoltin.productsPath : FakeMoltin.tokenPath }
    }

    /// One fault on one operation's request.
    struct Case: CustomTestStringConvertible, Sendable {
        let fault: NetworkFault
        let operation: Operation
        var testDescription: String { "\(fault) on \(operation)" }

        static let all = NetworkFault.allCases.flatMap { fault in Operation.allCases.map { Case(fault: fault, operation: $0) } }
    }

    @Test("a typed error, one request, the last good token kept", arguments: Case.all, FakeTransportMode.allCases)
    func fault(_ testCase: Case, _ mode: FakeTransportMode) async throws {
        let (fault, operation) = (testCase.fault, testCase.operation)
        let world = try MoltinWorld(mode: mode, deadline: NetworkFault.timeout, rawAnswers: fault.needsRawAnswer, foreign: fault.isForeign)
        let good = try await world.authenticate()
        let before = try #require(try world.storedBytes)
        if operation == .productsAfterExpiry {
            world.clock.advance(by: 61 * 60)
        }
        let requestsBefore = NetworkFault.wireCount(world.server, raw: world.raw)
        fault.arm(world.server, raw: world.raw, path: operation.faultedPath)

        let client = world.client
        let error = try await fault.error(clock: world.clock, stalled: world.wiring.stalled) {
            switch operation {
            case .auth: try await client.auth(clientId: MoltinWorld.clientID, clientSecret: MoltinWorld.clientSecret)
            case .refreshToken: try await client.refreshToken()
            case .products, .productsAfterExpiry: _ = try await client.products()
            }
        }

        fault.check(error, secrets: [MoltinWorld.clientSecret, good.accessToken])
        #expect(try world.storedBytes == before)
        #expect(NetworkFault.wireCount(world.server, raw: world.raw) == requestsBefore + 1)

        // The fault is spent, the kept token and the remembered credentials carry on.
        world.server.clearFaults()
        #expect(try await client.products().map(\.id) == ["1001", "1002"])
        if operation != .productsAfterExpiry {
            #expect(try await client.currentToken() == good, "the good token was used as it was, not replaced")
        }
    }
}
