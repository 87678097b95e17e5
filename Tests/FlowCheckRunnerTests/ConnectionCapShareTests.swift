import Foundation
import FlowCheckTestLanes
import Testing
@testable import FlowCheckServe

/// serve's per-port connection cap is each port's share of the descriptors the process may
/// open, bounded both ways.
@Suite(.fast, .timeLimit(.minutes(20)))
struct ConnectionCapShareTests {
    @Test(arguments: [
        // (ports, descriptors, cap)
        (6, 256, 32),         // a macOS default: (256 - 64) / 6
        (6, 20_000, 1024),    // bounded by the threads it would take
        (6, 100, 8),          // never below the least
        (1, 1_088, 1024),
        (5, 1_024, 192),
    ])
    func eachPortGetsItsShare(_ ports: Int, _ descriptors: Int, _ cap: Int) {
        #expect(ConnectionCap.perPort(ports: ports, descriptors: descriptors) == cap)
    }

    @Test func theLimitIsRaisedNotLowered() {
        let first = ConnectionCap.raisedDescriptorLimit()
        #expect(first >= 64)
        #expect(ConnectionCap.raisedDescriptorLimit() >= first)
    }
}
