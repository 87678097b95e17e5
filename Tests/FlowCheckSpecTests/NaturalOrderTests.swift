import Foundation
import FlowCheckTestLanes
import Testing
import FlowCheckSpec

/// Ids in the order a person reads them, in every list the tool prints or writes.
@Suite(.fast, .timeLimit(.minutes(20)))
struct NaturalOrderTests {
    @Test func digitRunsCompareAsNumbers() {
        let ids = ["CLV-FULL-10", "CLV-FULL-2", "CLV-API-1", "CLV-FULL-1", "MLT-AUTH", "CLV-FULL-21", "CLV-FULL-02", "CLE-LOGIN", "CLV-FULL-2~tamper.state.case"]
        #expect(ids.sorted(by: NaturalOrder.precedes) == ["CLE-LOGIN", "CLV-API-1", "CLV-FULL-1", "CLV-FULL-2", "CLV-FULL-2~tamper.state.case", "CLV-FULL-02", "CLV-FULL-10", "CLV-FULL-21", "MLT-AUTH"])
    }

    @Test func itIsAStrictOrder() {
        let ids = ["A-1", "A-01", "A-10", "A-9", "A", "A-", "B-2", "a-1", "A-1x", "A-1-2", "A-1-10"]
        for a in ids {
            #expect(!NaturalOrder.precedes(a, a))
            for b in ids where a != b {
                #expect(NaturalOrder.precedes(a, b) != NaturalOrder.precedes(b, a), "\(a) and \(b)")
            }
        }
    }

    @Test func theLoaderListsSpecsInThatOrder() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let ids = try SpecLoader.standard.load(paths: [root.appendingPathComponent("specs").path]).specs.map(\.id)
        let clover = ids.filter { $0.hasPrefix("CLV-FULL-") }
        #expect(clover.prefix(3) == ["CLV-FULL-1", "CLV-FULL-2", "CLV-FULL-3"], "\(clover)")
        #expect(clover.last == "CLV-FULL-23")
    }
}
