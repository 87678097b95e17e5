import FlowCheckTestLanes
import Testing
@testable import FlowCheckRunner

/// How many flows run at once by default: four per core, within the descriptors the process
/// may open (a reviewer's run of the suite at 192 flows at once under a soft limit of 1,024,
/// four per core on 48 cores, failed 62 flows for want of descriptors, blamed on the SDK).
@Suite(.fast, .timeLimit(.minutes(20)))
struct DefaultConcurrencyTests {
    @Test(arguments: [
        // (cores, soft descriptor limit, flows at once)
        (2, 1_024, 8),        // this machine
        (12, 256, 12),        // macOS's usual soft limit: 4 x 12 would be 48
        (48, 1_024, 60),      // the reviewer's case: not 192
        (100, 1_000_000, 256), // never beyond what --jobs accepts
        (2, 50, 1),           // at least one, however few
        (0, 1_024, 4),        // a platform that reports no cores counts one
    ])
    func fourPerCoreWithinTheDescriptors(_ example: (cores: Int, descriptors: Int, flows: Int)) {
        #expect(FlowRunner.Options.defaultConcurrency(cores: example.cores, descriptors: example.descriptors) == example.flows)
    }
}
