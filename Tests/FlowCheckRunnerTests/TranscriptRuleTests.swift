import Foundation
import FlowCheckTestLanes
import Testing
@testable import FlowCheckRunner
import FlowCheckFakeServer

/// Report transcripts say which rule refused a request, beside the status (issue 14).
@Suite(.fast, .timeLimit(.minutes(20)))
struct TranscriptRuleTests {
    private func exchange(_ response: HTTPResponse) -> RecordedExchange {
        RecordedExchange(
            index: 0, time: Date(timeIntervalSince1970: 0),
            request: HTTPRequest(method: "POST", target: "/oauth/v2/token"), response: response, fault: nil
        )
    }

    @Test func aRefusalShowsItsRuleBesideTheStatusOnce() {
        let refused = HTTPResponse.json(400, ["error": "invalid_grant"]).refused(by: .cloverTokenPKCEMismatch)
        let text = Transcript.render(exchange(refused))
        let lines = text.split(separator: "\n")
        #expect(lines.first == "#1 POST /oauth/v2/token → 400 [clover.token.pkce-mismatch]")
        #expect(!text.contains("FlowCheck-Rule"), "the header line is not repeated")
    }

    @Test func anAnswerWithoutARuleShowsNone() {
        let text = Transcript.render(exchange(.json(200, ["ok": true])))
        #expect(text.split(separator: "\n").first == "#1 POST /oauth/v2/token → 200")
    }
}
