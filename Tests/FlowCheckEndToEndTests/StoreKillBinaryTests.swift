import Foundation
import FlowCheckTestLanes
import Testing
import FlowCheckSDK
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// FileTokenStore under SIGKILL: a process killed mid-save leaves the old token or the new one,
/// never a torn one; the next open removes the temporary file the killed save left; and once
/// the token is deleted no token bytes remain in the directory.
@Suite(.integration, .timeLimit(.minutes(20)))
struct StoreKillBinaryTests {
    static func churn() throws -> URL {
        let beside = try FlowCheckBinaryTests.binary().deletingLastPathComponent().appendingPathComponent("store-churn")
        guard FileManager.default.isExecutableFile(atPath: beside.path) else {
            throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: beside.path])
        }
        return beside
    }

    /// The files of the store's directory and their bytes.
    static func files(in folder: URL) throws -> [String: Data] {
        var out: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) {
            out[name] = try Data(contentsOf: folder.appendingPathComponent(name))
        }
        return out
    }

    /// What store-churn saves as its `count`-th value (the test's own copy of the rule).
    static func value(_ count: Int) -> String {
        "token-\(count):" + String(repeating: String(count), count: (256 * 1024) / String(count).count)
    }

    /// Launches store-churn on `folder` and kills it (SIGKILL) in the middle of a save, from
    /// the child's reading thread; returns the files it left.
    static func killMidSave(_ folder: URL, round: Int) async throws -> [String: Data] {
        let child = try await ChildProcess.launch(
            "store-churn (round \(round))", executable: try churn(), arguments: [folder.path, "access"],
            on: (.stdout, "saving", { child in
                // On the child's reading thread: once a save's temporary file is there (or
                // after 10 s), kill. The save may still finish between the look and the kill.
                let giveUp = Date().addingTimeInterval(10)
                while Date() < giveUp, !((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).contains(where: { $0.hasPrefix(".tmp-") }) {
                    sched_yield()
                }
                child.signal(SIGKILL)
            })
        )
        defer { child.kill() }
        let status = try await child.exitStatus()
        #expect(status != 0, "store-churn ended on its own: \(child.stderr.text)")
        return try files(in: folder)
    }

    @Test func killedSavesLeaveNoTornTokenAndNothingOnceOpenedOrDeleted() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("flowcheck-kill-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        var midSave = 0
        for round in 1...30 {
            let left = try await Self.killMidSave(folder, round: round)
            if left.keys.contains(where: { $0.hasPrefix(".tmp-") }) { midSave += 1 }
            if let token = left["access.token"] {
                let text = String(decoding: token, as: UTF8.self)
                let count = Int(text.dropFirst("token-".count).prefix { $0 != ":" }) ?? -1
                #expect(text == Self.value(count), "round \(round): a torn token (\(token.count) bytes)")
            }
        }
        #expect(midSave > 0, "no kill in 30 rounds landed mid-save: nothing here was tested")
        // Opening the store, as a relaunched app does, removes what the killed saves left.
        let store = try FileTokenStore(directory: folder)
        #expect(try Self.files(in: folder).keys.filter { $0.hasPrefix(".tmp-") }.isEmpty)
        // A save killed while this store is open; then delete: no token bytes stay behind.
        _ = try await Self.killMidSave(folder, round: 31)
        try store.delete("access")
        #expect(try store.keys().isEmpty)
        for (name, bytes) in try Self.files(in: folder) {
            #expect(!String(decoding: bytes, as: UTF8.self).contains("token-"), "\(name) still holds token bytes after delete")
        }
    }

    /// Whether this machine can start a process in a PID namespace of its own (root and
    /// util-linux's `unshare`), as a container does.
    static let canUnshare: Bool = {
        guard geteuid() == 0, FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare") else { return false }
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
        probe.arguments = ["--pid", "--fork", "--kill-child=SIGKILL", "/bin/true"]
        guard (try? probe.run()) != nil else { return false }
        probe.waitUntilExit()
        return probe.terminationStatus == 0
    }()

    /// store-churn in a PID namespace of its own, as the `pid`-th process there (a container's
    /// app has the same small id on every start, and another container's ids mean nothing).
    static func churnInContainer(_ folder: URL, pid: Int, name: String, killAfterSaves: Bool) async throws -> ChildProcess {
        let fillers = String(repeating: "/bin/true; ", count: max(0, pid - 2))
        let script = "\(fillers)\"$0\" \"$1\" access; exit $?"
        return try await ChildProcess.launch(
            name, executable: URL(fileURLWithPath: "/usr/bin/unshare"),
            arguments: ["--pid", "--fork", "--kill-child=SIGKILL", "/bin/sh", "-c", script, try churn().path, folder.path],
            on: killAfterSaves ? (.stdout, "saving", { @Sendable child in
                // Once a few new temporary files have come and gone (saves of both are under
                // way), kill: sometimes mid-save, sometimes between saves.
                var seen = Set<String>()
                let giveUp = Date().addingTimeInterval(10)
                while Date() < giveUp, seen.count < 4 {
                    for name in (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [] where name.hasPrefix(".tmp-") { seen.insert(name) }
                    sched_yield()
                }
                child.signal(SIGKILL)
            }) : nil
        )
    }

    /// Two containers save to one folder while one of them is killed again and again: no save
    /// fails because of the other, no token is torn, and after a delete no token bytes are left
    /// (the store used to tell a leftover by a process id, which in a container says nothing).
    @Test(.enabled(if: canUnshare, "needs root and unshare (PID namespaces)"))
    func twoContainersSharingAFolderNeverBreakEachOthersSaves() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("flowcheck-containers-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let steady = try await Self.churnInContainer(folder, pid: 2, name: "container A", killAfterSaves: false)
        defer { steady.kill() }
        for round in 1...20 {
            let killed = try await Self.churnInContainer(folder, pid: 3, name: "container B (round \(round))", killAfterSaves: true)
            defer { killed.kill() }
            _ = try await killed.exitStatus()
            #expect(!killed.stderr.text.contains("store-churn:"), "round \(round): a save of B failed: \(killed.stderr.text)")
        }
        steady.kill()
        _ = try await steady.exitStatus()
        #expect(!steady.stderr.text.contains("store-churn:"), "a save of A failed: \(steady.stderr.text)")
        let left = try Self.files(in: folder)
        if let token = left["access.token"] {
            let text = String(decoding: token, as: UTF8.self)
            let count = Int(text.dropFirst("token-".count).prefix { $0 != ":" }) ?? -1
            #expect(text == Self.value(count), "a torn token (\(token.count) bytes)")
        }
        // Opened from here (another PID namespace again), then deleted: nothing of a token left.
        let store = try FileTokenStore(directory: folder)
        try store.delete("access")
        for (name, bytes) in try Self.files(in: folder) {
            #expect(!String(decoding: bytes, as: UTF8.self).contains("token-"), "\(name) still holds token bytes after delete")
        }
    }
}
