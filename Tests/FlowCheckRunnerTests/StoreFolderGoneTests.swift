import Foundation
import FlowCheckTestLanes
import Testing
@testable import FlowCheckRunner

/// A store may remove its folder with its last item (a `deleteToken` that takes the folder
/// too). That is an empty store, not a driver that cannot be inspected; a folder that is not
/// there and is said to hold files is still the driver's error.
@Suite(.fast, .timeLimit(.minutes(20)))
struct StoreFolderGoneTests {
    @Test func aRemovedFolderIsAnEmptyStore() throws {
        let gone = FileManager.default.temporaryDirectory.appendingPathComponent("flowcheck-gone-\(UUID().uuidString)/store")
        let facts = try StoreDirectoryFacts.measure(StoreLocation(directory: gone, files: []))
        #expect(facts.entries.isEmpty && facts.storeFiles.isEmpty)
        #expect(facts.directoryMode & 0o077 == 0 && facts.directoryIsDirectory && facts.directoryOwnedByUser)
    }

    @Test func aRemovedFolderSaidToHoldFilesIsAnError() {
        let gone = FileManager.default.temporaryDirectory.appendingPathComponent("flowcheck-gone-\(UUID().uuidString)/store")
        #expect(throws: DriverError.self) { try StoreDirectoryFacts.measure(StoreLocation(directory: gone, files: ["token.json"])) }
    }
}
