import Dispatch
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
@testable import FlowCheckFakeServer
import FlowCheckTestLanes
import Testing

/// The threads that serve connections (and send the harness's exchanges) are reused: a
/// finished body's thread runs the next one, and every body handed off runs exactly once.
/// Each test has a pool of its own, so other tests' connections never take its threads.
@Suite(.fast, .timeLimit(.minutes(20)))
struct ConnectionThreadTests {

    @Test func aFinishedThreadRunsTheNextBody() throws {
        let idle = DispatchSemaphore(value: 0)
        let pool = WaitingThreads(onIdle: { idle.signal() })
        let threads = Locked<[pthread_t]>([])
        let ran = DispatchSemaphore(value: 0)
        let record: @Sendable () -> Void = {
            threads.withLock { $0.append(pthread_self()) }
            ran.signal()
        }
        #expect(ConnectionThread.start(record, reusing: pool))
        try #require(ran.wait(timeout: .now() + .seconds(120)) == .success)
        try #require(idle.wait(timeout: .now() + .seconds(120)) == .success, "the first thread never waited for more work")
        #expect(ConnectionThread.start(record, reusing: pool))
        try #require(ran.wait(timeout: .now() + .seconds(120)) == .success)
        let seen = threads.withLock { $0 }
        try #require(seen.count == 2)
        #expect(pthread_equal(seen[0], seen[1]) != 0, "the second body ran on a new thread, not the waiting one")
    }

    @Test func everyBodyHandedOffRunsExactlyOnce() throws {
        let pool = WaitingThreads()
        let count = 400
        let runs = Locked<[Int: Int]>([:])
        let done = DispatchSemaphore(value: 0)
        // Started from several threads at once, while earlier bodies end and their threads
        // begin to wait: hand-offs and new threads race.
        DispatchQueue.concurrentPerform(iterations: count) { index in
            let started = ConnectionThread.start({
                runs.withLock { $0[index, default: 0] += 1 }
                done.signal()
            }, reusing: pool)
            #expect(started)
        }
        for _ in 0..<count {
            try #require(done.wait(timeout: .now() + .seconds(120)) == .success, "a body handed off never ran")
        }
        let seen = runs.withLock { $0 }
        #expect(seen.count == count)
        #expect(seen.values.allSatisfy { $0 == 1 })
    }
}
