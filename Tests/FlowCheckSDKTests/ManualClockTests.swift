import Foundation
import Testing
import FlowCheckSDK
import FlowCheckTestSupport

@Suite("ManualClock")
struct ManualClockTests {
    @Test("starts at 2026-01-01T00:00:00Z and moves only when told")
    func moves() {
        let clock = ManualClock()
        #expect(clock.now == Date(timeIntervalSince1970: 1_767_225_600))
        #expect(clock.now == clock.now)
        clock.advance(by: 61 * 60)
        #expect(clock.now == Date(timeIntervalSince1970: 1_767_225_600 + 3660))
        clock.set(Date(timeIntervalSince1970: 0))
        #expect(clock.now == Date(timeIntervalSince1970: 0))
        clock.advance(by: -1)
        #expect(clock.now == Date(timeIntervalSince1970: -1))
    }

    @Test("usable as any TimeSource")
    func existential() {
        let source: any TimeSource = ManualClock(now: Date(timeIntervalSince1970: 42))
        #expect(source.now == Date(timeIntervalSince1970: 42))
    }
}
