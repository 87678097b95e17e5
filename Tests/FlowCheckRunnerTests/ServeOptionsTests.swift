import Foundation
import FlowCheckTestLanes
import Testing
import FlowCheckCLI

/// `serve`'s options for use from outside: `--host`, `--control-port`, `--ready-file`.
@Suite(.fast, .timeLimit(.minutes(20)))
struct ServeOptionsTests {
    @Test func serveTakesHostControlPortAndReadyFile() throws {
        let options = try CommandLineOptions.parse(["serve", "--host", "0.0.0.0", "--control-port", "9001", "--ready-file=/tmp/r.json"])
        #expect(options.host == "0.0.0.0" && options.controlPort == 9001 && options.readyFile == "/tmp/r.json")
        let plain = try CommandLineOptions.parse(["serve"])
        #expect(plain.host == "127.0.0.1" && plain.controlPort == 0 && plain.readyFile == nil)
    }

    @Test(arguments: [
        (["serve", "--host", "localhost"], "--host takes an IPv4 address"),
        (["serve", "--host", "256.1.1.1"], "--host takes an IPv4 address"),
        (["serve", "--control-port", "70000"], "--control-port takes a port"),
        (["serve", "--port", "9000", "--control-port", "9000"], "a port of its own"),
        (["--ready-file", "r.json", "specs/"], "go with serve"),
    ])
    func badServeOptionsAreUsageErrors(arguments: [String], message: String) {
        #expect {
            _ = try CommandLineOptions.parse(arguments)
        } throws: { error in
            "\(error)".contains(message)
        }
    }

    /// serve's virtual clock is the only time the fakes read: no persona or server code asks
    /// the machine for the date.
    @Test func noFakeReadsTheWallClock() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let folder = root.appendingPathComponent("Sources/FlowCheckFakeServer")
        let enumerator = FileManager.default.enumerator(atPath: folder.path)
        var read = 0
        while let name = enumerator?.nextObject() as? String {
            guard name.hasSuffix(".swift") else { continue }
            let text = try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
            read += 1
            for clock in ["Date()", "Date.now", "Date(timeIntervalSinceNow", "Date.init()"] {
                let code = text.split(separator: "\n").filter { !$0.trimmingCharacters(in: .whitespaces).hasPrefix("//") }
                #expect(!code.contains { $0.contains(clock) }, "\(name) reads the wall clock (\(clock)): the fakes take time only as the now their server passes")
            }
        }
        #expect(read > 20, "the fake server's sources were found")
    }
}
