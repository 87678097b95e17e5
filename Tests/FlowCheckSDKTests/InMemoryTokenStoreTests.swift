import Foundation
import FlowCheckTestLanes
import Testing
import FlowCheckSDK

@Suite("InMemoryTokenStore", .fast, .timeLimit(.minutes(20)))
struct InMemoryTokenStoreTests {
    @Test("write, read, overwrite, delete, keys")
    func lifecycle() throws {
        let store = InMemoryTokenStore()
        #expect(try store.read("a") == nil)
        try store.write(Data("1".utf8), for: "b")
        try store.write(Data("2".utf8), for: "a")
        #expect(try store.keys() == ["a", "b"])
        try store.write(Data("3".utf8), for: "a")
        #expect(try store.read("a") == Data("3".utf8))
        try store.delete("a")
        try store.delete("missing")
        #expect(try store.read("a") == nil)
        #expect(try store.keys() == ["b"])
    }

    @Test("concurrent writers do not lose keys")
    func concurrentWrites() async throws {
        let store = InMemoryTokenStore()
        // Tasks, not DispatchQueue.concurrentPerform: on Linux that runs on the cooperative
        // pool's own threads and holds the calling one until every write is done.
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<200 {
                group.addTask { try? store.write(Data([UInt8(index % 256)]), for: "key-\(index)") }
            }
        }
        #expect(try store.keys().count == 200)
        #expect(try store.read("key-7") == Data([7]))
    }
}
