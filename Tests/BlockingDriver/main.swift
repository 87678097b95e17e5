import FlowCheckCLI
import FlowCheckRunner
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// A team's own `flowcheck` over a Swift driver whose SDK blocks what it should not, for the
// end-to-end tests that such a driver can neither keep the process deaf to Ctrl-C nor keep it
// alive once its run is over.
//
//   BLOCKING_DRIVER_BLOCK=main+pool  in flow BLOCKING_DRIVER_FLOW (default E2E-1), the first
//                                    call blocks the main thread for good, then waits on the
//                                    main queue from its own pool thread (DispatchQueue.main.sync)
//   BLOCKING_DRIVER_BLOCK=main       every session blocks the main thread for good; calls return
//   BLOCKING_DRIVER_BLOCK=none       nothing blocks
//   BLOCKING_DRIVER_SHARED=1         the driver declares process-wide state (sharesProcessState),
//                                    and says "blocking-driver: sessions overlapped" on stderr
//                                    if two sessions are ever open at once
//   BLOCKING_DRIVER_ENTRY=run        `exit(await FlowCheckMain.run(driver:))`, README's old form
//   BLOCKING_DRIVER_ENTRY=runAndExit `await FlowCheckMain.runAndExit(driver:)` (the default)
//
// It writes "blocking-driver: blocking" to stderr once the main thread is blocked. Calls that
// do not block return ok with the result fields the E2E specs read, so those flows pass or
// fail on their checks; what matters is how the process ends.
let environment = ProcessInfo.processInfo.environment
let block = environment["BLOCKING_DRIVER_BLOCK"] ?? "main+pool"
let blockedFlow = environment["BLOCKING_DRIVER_FLOW"] ?? "E2E-1"

/// Blocks the main thread for good (once), and says so on stderr when it has.
func blockTheMainThread() {
    DispatchQueue.main.async {
        _ = write(STDERR_FILENO, "blocking-driver: blocking\n", 26)
        while true { sleep(1000) }
    }
}

/// Sessions open now, for a driver that says its SDK's state is process-wide.
let openSessions = OpenSessions()

actor OpenSessions {
    private var count = 0

    func opened() {
        count += 1
        if count > 1 { _ = write(STDERR_FILENO, "blocking-driver: sessions overlapped\n", 37) }
    }

    func closed() {
        count -= 1
    }
}

struct BlockingDriver: FlowDriver {
    let name = "blocking driver"
    let sharesProcessState = environment["BLOCKING_DRIVER_SHARED"] == "1"

    func makeSession(for context: DriverContext) async throws -> any FlowSession {
        if block == "main" { blockTheMainThread() }
        await openSessions.opened()
        return BlockingSession(blocks: block == "main+pool" && context.flowID == blockedFlow)
    }
}

final class BlockingSession: FlowSession {
    let blocks: Bool

    init(blocks: Bool) {
        self.blocks = blocks
    }

    func perform(_ call: AppCall) async throws -> CallOutcome {
        if blocks {
            blockTheMainThread()
            // Waits on the main queue, which the block above holds for good: this thread of
            // Swift's task pool never comes back.
            DispatchQueue.main.sync {}
        }
        return .ok(["productCount": "2"])
    }

    func storeContents() async throws -> [String: String] {
        ["accessToken": "blocking-driver-token", "tokenType": "Bearer", "expiresAt": "0"]
    }

    func close() async {
        await openSessions.closed()
    }
}

if environment["BLOCKING_DRIVER_ENTRY"] == "run" {
    exit(await FlowCheckMain.run(driver: BlockingDriver()))
} else {
    await FlowCheckMain.runAndExit(driver: BlockingDriver())
}
