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

    /// A body is masked before it is cut: a token across the cut is masked whole, never half
    /// shown (the redactor masks whole secrets, and half of one is not one).
    @Test(arguments: [2000, 2020, 2030, 2040, 2047])
    func aTokenAcrossTheBodyCutIsMaskedWhole(_ offset: Int) {
        let token = "9f2c4e6a8b0d1f3e5a7c9b1d3f5e7a9c0b2d4f6e"
        let body = String(repeating: "x", count: offset) + token + String(repeating: " and more", count: 20)
        let text = Transcript.render(exchange(HTTPResponse.text(502, body)), mask: Redactor(secrets: [token]).scrub)
        #expect(text.contains("more characters)"), "the body was cut: \(text.suffix(200))")
        for start in 0...(token.count - 8) {
            #expect(!text.contains(String(token.dropFirst(start).prefix(8))), "offset \(offset): \(text.suffix(200))")
        }
    }
}
