import Foundation
import FlowCheckTestLanes
import Testing
import FlowCheckCLI
import FlowCheckReports
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Console writes that fail mark the stream gone instead of trapping; report paths that
/// cannot be written get a sentence.
@Suite(.fast, .timeLimit(.minutes(20)))
struct ConsoleStreamTests {
    @Test func aPipeWhoseReaderLeftIsGoneWithEPIPE() throws {
        ConsoleStream.ignoreBrokenPipes()
        var ends: [Int32] = [0, 0]
        try #require(pipe(&ends) == 0)
        defer { close(ends[1]) }
        close(ends[0])
        let stream = ConsoleStream(descriptor: ends[1])
        #expect(stream.gone == nil)
        stream.write("first line\n")
        #expect(stream.gone == EPIPE)
        // Later writes are dropped, not retried, and do not trap.
        stream.write("second line\n")
        #expect(stream.gone == EPIPE)
    }

    @Test func aFullDiskIsGoneWithENOSPC() throws {
        let full = open("/dev/full", O_WRONLY)
        try #require(full >= 0, "no /dev/full on this machine")
        defer { close(full) }
        let stream = ConsoleStream(descriptor: full)
        stream.write(String(repeating: "x", count: 100_000))
        #expect(stream.gone == ENOSPC)
    }

    @Test func aWritableStreamGetsEveryByte() throws {
        var ends: [Int32] = [0, 0]
        try #require(pipe(&ends) == 0)
        defer { close(ends[0]) }
        let stream = ConsoleStream(descriptor: ends[1])
        stream.write("héllo\n")
        close(ends[1])
        var buffer = [UInt8](repeating: 0, count: 64)
        let count = read(ends[0], &buffer, buffer.count)
        #expect(String(decoding: buffer.prefix(max(0, count)), as: UTF8.self) == "héllo\n")
        #expect(stream.gone == nil)
    }

    @Test func reportPathsThatCannotBeWrittenGetASentence() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("flowcheck-writer-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        try FileManager.default.createDirectory(at: root.appendingPathComponent("folder"), withIntermediateDirectories: true)
        try Data("x".utf8).write(to: root.appendingPathComponent("file"))
        let folder = root.appendingPathComponent("folder").path
        #expect(throws: ReportWriter.WriteError(path: folder, reason: "it is a folder; give a file path, such as \(folder)/junit.xml")) {
            try ReportWriter.write("r", to: folder, defaultName: "junit.xml")
        }
        let underFile = root.appendingPathComponent("file/sub/junit.xml").path
        #expect(throws: ReportWriter.WriteError(path: underFile, reason: "its folder \(root.path)/file/sub cannot be made (\(root.path)/file is a file, not a folder)")) {
            try ReportWriter.write("r", to: underFile)
        }
        // A written report leaves no temporary file beside it.
        try ReportWriter.write("whole", to: root.appendingPathComponent("out/r.xml").path)
        #expect(try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("out").path) == ["r.xml"])
    }
}
