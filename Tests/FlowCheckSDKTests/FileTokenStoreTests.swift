import Foundation
import FlowCheckTestLanes
import Testing
import FlowCheckSDK
import FlowCheckTestSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@Suite("FileTokenStore", .fast, .timeLimit(.minutes(20)))
struct FileTokenStoreTests {
    private func mode(of path: String) throws -> mode_t {
        var info = stat()
        try #require(stat(path, &info) == 0)
        return info.st_mode & 0o777
    }

    /// The folder's files but its empty lock file (checked in `permissions()`).
    private func fileNames(in directory: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0 != ".writers.lock" }.sorted()
    }

    @Test("directory is 0700 and files are 0600")
    func permissions() throws {
        let temporary = TemporaryDirectory()
        defer { temporary.remove() }
        let directory = temporary.url.appendingPathComponent("nested/tokens")
        let store = try FileTokenStore(directory: directory)
        try store.write(Data("secret".utf8), for: "moltin.token")

        #expect(try mode(of: directory.path) == 0o700)
        let names = try fileNames(in: directory)
        #expect(names.count == 1)
        for name in names {
            #expect(try mode(of: directory.appendingPathComponent(name).path) == 0o600)
        }
        // The lock saves hold while they create their temporary files: empty, owner-only.
        let gate = directory.appendingPathComponent(".writers.lock")
        #expect(try mode(of: gate.path) == 0o600)
        #expect(try Data(contentsOf: gate).isEmpty)
    }

    /// A temporary file a save holds locked is a save in progress, whatever its name says; one
    /// nobody holds is a killed save's leftover, removed by the next open, save or delete.
    @Test("a leftover is a temporary file nobody holds locked, not one of a dead process id")
    func leftoversAreTheUnlockedTemporaryFiles() throws {
        let temporary = TemporaryDirectory()
        defer { temporary.remove() }
        let store = try FileTokenStore(directory: temporary.url)
        let held = temporary.url.appendingPathComponent(".tmp-held").path
        let left = temporary.url.appendingPathComponent(".tmp-1-left").path
        let holder = open(held, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        try #require(holder >= 0)
        var holding = true
        defer { if holding { close(holder) } }
        try #require(flock(holder, LOCK_EX | LOCK_NB) == 0)
        try Data("token-bytes".utf8).write(to: URL(fileURLWithPath: left))
        // The old rule kept `.tmp-1-…` while process 1 lived; nobody holds it.
        try store.write(Data("new".utf8), for: "moltin.token")
        #expect(!FileManager.default.fileExists(atPath: left))
        #expect(FileManager.default.fileExists(atPath: held), "a save in progress keeps its file")
        try store.delete("moltin.token")
        #expect(FileManager.default.fileExists(atPath: held))
        close(holder)
        holding = false
        _ = try FileTokenStore(directory: temporary.url)
        #expect(!FileManager.default.fileExists(atPath: held), "released, it is a leftover")
    }

    @Test("an existing directory with looser permissions is tightened to 0700")
    func tightensExistingDirectory() throws {
        let temporary = TemporaryDirectory()
        defer { temporary.remove() }
        try FileManager.default.createDirectory(
            at: temporary.url, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        #expect(try mode(of: temporary.url.path) == 0o755)
        _ = try FileTokenStore(directory: temporary.url)
        #expect(try mode(of: temporary.url.path) == 0o700)
    }

    @Test("a file where the directory should be is refused")
    func refusesFile() throws {
        let temporary = TemporaryDirectory()
        defer { temporary.remove() }
        try FileManager.default.createDirectory(at: temporary.url, withIntermediateDirectories: true)
        let file = temporary.url.appendingPathComponent("plain-file")
        try Data("x".utf8).write(to: file)
        let error = #expect(throws: OAuthError.self) { try FileTokenStore(directory: file) }
        #expect(error?.code == .storage)
    }

    @Test("a symbolic link where the directory should be is refused, even to a directory")
    func refusesSymbolicLink() throws {
        let temporary = TemporaryDirectory()
        defer { temporary.remove() }
        let real = temporary.url.appendingPathComponent("real")
        try FileManager.default.createDirectory(at: real, withIntermediateDirectories: true)
        let link = temporary.url.appendingPathComponent("link")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: real)
        let error = #expect(throws: OAuthError.self) { try FileTokenStore(directory: link) }
        #expect(error?.code == .storage)
        #expect(try FileManager.default.contentsOfDirectory(atPath: real.path).isEmpty, "nothing written through the link")
    }

    @Test("read of a missing key is nil; write, overwrite, read back, delete")
    func basicLifecycle() throws {
        let temporary = TemporaryDirectory()
        defer { temporary.remove() }
        let store = try FileTokenStore(directory: temporary.url)
        #expect(try store.read("k") == nil)
        try store.write(Data("one".utf8), for: "k")
        #expect(try store.read("k") == Data("one".utf8))
        try store.write(Data("two, longer".utf8), for: "k")
        #expect(try store.read("k") == Data("two, longer".utf8))
        try store.write(Data(), for: "k")
        #expect(try store.read("k") == Data())
        try store.delete("k")
        #expect(try store.read("k") == nil)
        try store.delete("k")  // deleting a missing key is not an error
        #expect(try store.keys().isEmpty)
    }

    @Test("a new instance on the same directory reads what the first wrote")
    func survivesReopening() throws {
        let temporary = TemporaryDirectory()
        defer { temporary.remove() }
        let blob = Data(#"{"accessToken":"abc"}"#.utf8)
        do {
            let first = try FileTokenStore(directory: temporary.url)
            try first.write(blob, for: MoltinConfiguration.storeKey)
        }
        let second = try FileTokenStore(directory: temporary.url)
        #expect(try second.read(MoltinConfiguration.storeKey) == blob)
        #expect(try second.keys() == [MoltinConfiguration.storeKey])
    }

    @Test("keys() returns the original keys; file names stay safe and distinct")
    func keysAreReversible() throws {
        let temporary = TemporaryDirectory()
        defer { temporary.remove() }
        let store = try FileTokenStore(directory: temporary.url)
        let keys = ["moltin.token", "Moltin.Token", "clover/merchant token é", ".hidden", "..", "a%41", "😀"]
        for (index, key) in keys.enumerated() {
            try store.write(Data([UInt8(index)]), for: key)
        }
        #expect(try store.keys() == keys.sorted())
        for (index, key) in keys.enumerated() {
            #expect(try store.read(key) == Data([UInt8(index)]))
        }
        let names = try fileNames(in: temporary.url)
        #expect(names.count == keys.count)
        // Distinct even on a case-insensitive file system, none hidden, no path separators.
        #expect(Set(names.map { $0.lowercased() }).count == keys.count)
        for name in names {
            #expect(!name.hasPrefix("."))
            #expect(!name.contains("/"))
        }
    }

    @Test("foreign files in the directory are not reported as keys")
    func ignoresForeignFiles() throws {
        let temporary = TemporaryDirectory()
        defer { temporary.remove() }
        let store = try FileTokenStore(directory: temporary.url)
        try Data("x".utf8).write(to: temporary.url.appendingPathComponent("notes.txt"))
        try Data("x".utf8).write(to: temporary.url.appendingPathComponent("UPPER.token"))
        try store.write(Data("y".utf8), for: "real")
        #expect(try store.keys() == ["real"])
    }

    @Test("an empty key is refused")
    func emptyKey() throws {
        let temporary = TemporaryDirectory()
        defer { temporary.remove() }
        let store = try FileTokenStore(directory: temporary.url)
        let error = #expect(throws: OAuthError.self) { try store.write(Data(), for: "") }
        #expect(error?.code == .storage)
    }

    @Test("repeated writes leave no temporary file and each read sees the whole last write")
    func atomicReplaceSequential() throws {
        let temporary = TemporaryDirectory()
        defer { temporary.remove() }
        let store = try FileTokenStore(directory: temporary.url)
        for round in 0..<200 {
            let blob = Self.blob(round)
            try store.write(blob, for: "moltin.token")
            #expect(try store.read("moltin.token") == blob)
            #expect(try fileNames(in: temporary.url) == ["moltin.token.token"])
        }
    }

    @Test("a concurrent reader never sees a partial file")
    func atomicReplaceConcurrent() async throws {
        let temporary = TemporaryDirectory()
        defer { temporary.remove() }
        let store = try FileTokenStore(directory: temporary.url)
        try store.write(Self.blob(0), for: "k")
        let rounds = 300
        let outcome = ConcurrentOutcome()
        // A writer and a reader at once, each on a thread of its own (file I/O blocks; the
        // cooperative pool is not the place for it).
        async let writing: Void = offThePool("the writer") {
            for round in 1...rounds {
                do { try store.write(Self.blob(round), for: "k") } catch { outcome.fail("write failed: \(error)") }
            }
            outcome.finishWriting()
        }
        async let reading: Void = offThePool("the reader") {
            // Reads until the writer is done, then once more: each must be a whole blob.
            var last = false
            while !last {
                last = outcome.writingFinished
                do {
                    guard let data = try store.read("k") else {
                        outcome.fail("the file vanished during a replace")
                        continue
                    }
                    if !Self.isWholeBlob(data) { outcome.fail("partial read of \(data.count) bytes") }
                    outcome.countRead()
                } catch {
                    outcome.fail("read failed: \(error)")
                }
            }
        }
        _ = try await (writing, reading)
        #expect(outcome.failures.isEmpty, "\(outcome.failures.prefix(3))")
        #expect(outcome.reads > 0)
        #expect(try store.read("k") == Self.blob(rounds))
        #expect(try fileNames(in: temporary.url) == ["k.token"])
    }

    /// Blob `n`: a 4-byte length header, then `length` copies of one byte; sizes vary a lot so a
    /// torn read would show.
    static func blob(_ n: Int) -> Data {
        let length = 1 + (n * 7919) % 20_000
        var data = Data()
        withUnsafeBytes(of: UInt32(length).littleEndian) { data.append(contentsOf: $0) }
        data.append(Data(repeating: UInt8(n % 251), count: length))
        return data
    }

    static func isWholeBlob(_ data: Data) -> Bool {
        guard data.count >= 5 else { return false }
        let bytes = [UInt8](data)
        let length = Int(bytes[0]) | Int(bytes[1]) << 8 | Int(bytes[2]) << 16 | Int(bytes[3]) << 24
        guard bytes.count == 4 + length else { return false }
        let fill = bytes[4]
        return bytes[4...].allSatisfy { $0 == fill }
    }
}

/// Results shared between the writer and reader threads.
private final class ConcurrentOutcome: @unchecked Sendable {
    private let lock = NSLock()
    private var finished = false
    private var failureList: [String] = []
    private var readCount = 0

    var writingFinished: Bool { lock.withLock { finished } }
    var failures: [String] { lock.withLock { failureList } }
    var reads: Int { lock.withLock { readCount } }

    func finishWriting() { lock.withLock { finished = true } }
    func fail(_ message: String) { lock.withLock { failureList.append(message) } }
    func countRead() { lock.withLock { readCount += 1 } }
}
