import Foundation
import FlowCheckTestLanes
import Testing
import FlowCheckCoreDriver
import FlowCheckRunner
import FlowCheckSpec

/// A driver whose SDK keeps process-wide state (``FlowDriver/sharesProcessState``) gets its
/// flows one at a time, whatever the runner's concurrency: no two of its sessions are ever
/// open at once, so no flow receives another's tokens or redirects.
@Suite(.integration, .timeLimit(.minutes(20)))
struct SharedProcessStateTests {
    /// The most sessions open at once.
    actor Overlap {
        private var open = 0
        private(set) var most = 0
        func opened() { open += 1; most = max(most, open) }
        func closed() { open -= 1 }
    }

    /// Our SDK core, declared process-wide, counting its open sessions.
    struct CountingDriver: FlowDriver {
        let name = "counting"
        let sharesProcessState: Bool
        let overlap: Overlap

        func makeSession(for context: DriverContext) async throws -> any FlowSession {
            await overlap.opened()
            return CountingSession(inner: try await CoreSDKDriver().makeSession(for: context), overlap: overlap)
        }
    }

    final class CountingSession: FlowSession {
        let inner: any FlowSession
        let overlap: Overlap
        init(inner: any FlowSession, overlap: Overlap) {
            self.inner = inner
            self.overlap = overlap
        }
        func perform(_ call: AppCall) async throws -> CallOutcome {
            // A pause in every call, so flows that could overlap do.
            try? await Task.sleep(for: .milliseconds(5))
            return try await inner.perform(call)
        }
        func storeContents() async throws -> [String: String] { try await inner.storeContents() }
        func storeLocation() async throws -> StoreLocation? { try await inner.storeLocation() }
        func close() async {
            await inner.close()
            await overlap.closed()
        }
    }

    @Test func flowsOfADriverSharingProcessStateRunOneAtATime() async throws {
        let specs = try SpecsEarnTheirPlaceTests.specs().filter { $0.id.hasPrefix("MLT-") }.prefix(6)
        let overlap = Overlap()
        let results = await FlowRunner(driver: CountingDriver(sharesProcessState: true, overlap: overlap), options: .init(concurrency: 4)).run(Array(specs))
        #expect(results.count == specs.count)
        #expect(results.allSatisfy { $0.status == .passed }, "\(results.filter { $0.status != .passed }.map(\.id))")
        #expect(await overlap.most == 1)
    }

    /// The default: every session is its own SDK.
    @Test func aDriverDoesNotShareProcessStateByDefault() {
        #expect(CoreSDKDriver().sharesProcessState == false)
    }
}
