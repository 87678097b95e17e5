import Foundation
import FlowCheckTestLanes
import Testing
@testable import FlowCheckFakeServer

/// The `retryAfterDate` reshape writes a `Retry-After` of delay-seconds as the IMF-fixdate it
/// names (RFC 9110 §10.2.3 and §5.6.7), by the fake's clock.
@Suite(.fast, .timeLimit(.minutes(20)))
struct RetryAfterDateTests {
    /// RFC 9110 §5.6.7's own example, and dates around the edges of months, leap days and
    /// centuries, checked against values computed apart (`date -u -d @N`).
    @Test(arguments: [
        (784_111_777.0, "Sun, 06 Nov 1994 08:49:37 GMT"),
        (0.0, "Thu, 01 Jan 1970 00:00:00 GMT"),
        (951_782_400.0, "Tue, 29 Feb 2000 00:00:00 GMT"),
        (1_767_225_600.0, "Thu, 01 Jan 2026 00:00:00 GMT"),
        (1_767_225_599.25, "Thu, 01 Jan 2026 00:00:00 GMT"),
        (4_107_542_399.0, "Sun, 28 Feb 2100 23:59:59 GMT"), (4_102_444_799.0, "Thu, 31 Dec 2099 23:59:59 GMT"),
        (-1.0, "Wed, 31 Dec 1969 23:59:59 GMT"),
    ])
    func imfFixdateMatchesPublishedValues(_ seconds: Double, _ expected: String) {
        #expect(HTTPDate.imfFixdate(Date(timeIntervalSince1970: seconds)) == expected)
    }

    @Test func aRateLimitedAnswerNamesTheSameInstantAsADate() throws {
        let now = Date(timeIntervalSince1970: 1_767_225_600)
        let limited = try #require(FaultKind.rateLimited.response(for: HTTPRequest(method: "GET", target: "/v1/products")))
        let reshaped = FaultKind.retryAfterDate.reshape(limited, at: now)
        #expect(limited.headers["Retry-After"] == "30")
        #expect(reshaped.headers["Retry-After"] == "Thu, 01 Jan 2026 00:00:30 GMT")
        #expect(reshaped.status == 429 && reshaped.body == limited.body)
    }

    /// An answer with no `Retry-After`, or one already a date, is left as it is.
    @Test func otherAnswersAreLeftAlone() throws {
        let now = Date(timeIntervalSince1970: 1_767_225_600)
        let error = try #require(FaultKind.serverError.response)
        #expect(FaultKind.retryAfterDate.reshape(error, at: now) == error)
        var dated = error
        dated.headers.set("Retry-After", "Fri, 02 Jan 2026 00:00:00 GMT")
        #expect(FaultKind.retryAfterDate.reshape(dated, at: now) == dated)
    }
}
