import Foundation
import FlowCheckTestLanes
import Testing
@testable import FlowCheckCLI
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import FlowCheckFakeServer

/// `serve`'s options for use from outside: `--host`, `--control-port`, `--ready-file`.
@Suite(.fast, .timeLimit(.minutes(20)))
struct ServeOptionsTests {
    @Test func serveTakesHostControlPortAndReadyFile() throws {
        let options = try CommandLineOptions.parse(["serve", "--host", "0.0.0.0", "--control-port", "9001", "--ready-file=/tmp/r.json"])
        #expect(options.host == "0.0.0.0" && options.controlPort == 9001 && options.readyFile == "/tmp/r.json")
        let plain = try CommandLineOptions.parse(["serve"])
        #expect(plain.host == "127.0.0.1" && plain.controlPort == 0 && plain.readyFile == nil)
    }

    /// A ready file that cannot be written is named with its cause in plain words, never in
    /// Foundation's (`NSCocoaErrorDomain error 512`).
    @Test func anUnwritableReadyFileIsNamedInPlainWords() throws {
        let path = "/proc/flowcheck-\(UUID().uuidString)/ready.json"
        #expect {
            try ServeReadyFile.write(Data("{}".utf8), to: path)
        } throws: { error in
            let text = "\(error)"
            return text.contains(path) && !text.contains("NSCocoaErrorDomain") && !text.contains("error 512")
        }
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

    /// Every port is checked before any is bound: `--port` must leave room for every origin
    /// served (five by default), and the control port must not be among them.
    @Test(arguments: [
        (["serve", "--port", "65532"], "--port 65532 leaves room for 4 ports, and the providers served need 5 (65532 to 65536); give a first port of at most 65531", FlowCheckCommand.ExitCode.usageOrInvalidSpec),
        (["serve", "--port", "9000", "--control-port", "9003"], "--control-port 9003 is one of the providers' ports (9000 to 9004, from --port)", .usageOrInvalidSpec),
    ])
    func portsAreCheckedBeforeAnyIsBound(arguments: [String], message: String, code: FlowCheckCommand.ExitCode) async {
        let lines = Locked<[String]>([])
        let console = FlowCheckCommand.Console(out: { line in lines.withLock { $0.append(line) } }, err: { line in lines.withLock { $0.append(line) } })
        let result = await FlowCheckCommand().run(arguments, console: console)
        #expect(result == code)
        #expect(lines.withLock { $0 }.contains { $0.contains(message) }, "\(lines.withLock { $0 })")
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

/// A bind error names the address `--host` asked for, not always 127.0.0.1 (a socket of its
/// own holds the port, so this is the integration lane's).
@Suite(.integration, .timeLimit(.minutes(20)))
struct ServeBindErrorTests {
    @Test func aBindErrorNamesTheHostAskedFor() async throws {
        let holder = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(holder >= 0)
        defer { close(holder) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr = in_addr(s_addr: 0)  // 0.0.0.0
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(holder, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        try #require(bound == 0 && listen(holder, 1) == 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(holder, $0, &length) } }
        let port = Int(UInt16(bigEndian: address.sin_port))
        let lines = Locked<[String]>([])
        let console = FlowCheckCommand.Console(out: { line in lines.withLock { $0.append(line) } }, err: { line in lines.withLock { $0.append(line) } })
        let code = await FlowCheckCommand().run(["serve", "--host", "0.0.0.0", "--port", String(port)], console: console)
        #expect(code == .harnessFailure)
        #expect(lines.withLock { $0 }.contains { $0.contains("bind(0.0.0.0:\(port)) failed") }, "\(lines.withLock { $0 })")
    }
}
}
