import Foundation
import Testing
import FlowCheckCoreDriver
import FlowCheckRunner
@testable import FlowCheckSDK

/// The harness does not lean on the SDK it judges: an SDK whose transport follows redirects is
/// caught by FLT-REDIRECT-LOOP, and no other flow turns into a harness error because the scripted
/// browser or a `send` step followed the same redirects.
///
/// While the browser and `send` steps borrowed the SDK's `URLSessionTransport`, this test found
/// 23 harness errors (every browser flow of Clover, Clever and Braintree: the browser followed the
/// login redirect to the app's custom scheme) and one misattributed failure, BT-CONNECT-RDNS.
@Suite(.timeLimit(.minutes(5)))
struct HarnessIndependenceTests {
    @Test func anSDKThatFollowsRedirectsFailsTheRedirectLoopFlowWithoutBreakingTheHarness() async throws {
        let specs = try SpecsEarnTheirPlaceTests.specs()
        // The defect lives in the SDK's own URLSessionTransport, so every transport made while the
        // flows run follows redirects: the driver's, and any the harness might still borrow.
        let results = await URLSessionTransport.$followsRedirectsDefect.withValue(true) {
            await FlowRunner(driver: CoreSDKDriver(name: "URLSession follows redirects")).run(specs)
        }
        #expect(results.count == specs.count)
        let errors = results.filter { $0.status == .error }
        let failed = results.filter { $0.status == .failed }.map(\.id)
        print("redirect-following SDK: \(results.count) flows, \(failed.count) failed \(failed), \(errors.count) harness errors \(errors.map(\.id))")
        #expect(results.first { $0.id == "FLT-REDIRECT-LOOP" }?.status == .failed)
        for result in errors {
            Issue.record("\(result.id) is a harness error, not a verdict on the SDK: \(result.errorMessage ?? "")")
        }
    }
}
