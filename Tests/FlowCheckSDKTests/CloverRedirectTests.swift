import Foundation
import FlowCheckTestLanes
import Testing
@testable import FlowCheckSDK
import FlowCheckTestSupport

/// The redirect judge on its own, without I/O: every refusal of CLV-FULL-8 and CLV-FULL-9 and
/// whether it keeps or ends the pending login.
@Suite("Clover redirect evaluation", .fast, .timeLimit(.minutes(20)))
struct CloverRedirectTests {
    static let state = "s7aTe-Value_0123456789abcdefghijklmnopqrstu"
    static let pending = CloverPendingLogin(
        state: state,
        pkce: PKCE(random: PinnedRandomSource(seed: 3)),
        redirectURL: URL(string: "https://app.example.com/clover/callback")!,
        appID: "APP1",
        apiBaseURL: URL(string: "https://api.example.com")!
    )

    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        let url: String
        let code: OAuthError.Code?
        let endsLogin: Bool
        var testDescription: String { name }
    }

    static let base = "https://app.example.com/clover/callback"

    @Test("decisions", arguments: [
        Case(name: "good redirect", url: "\(base)?merchant_id=M1&client_id=APP1&code=C1&state=\(state)", code: nil, endsLogin: true),
        Case(name: "good, no client_id", url: "\(base)?merchant_id=M1&code=C1&state=\(state)", code: nil, endsLogin: true),
        Case(name: "default port spelled out, host in capitals", url: "https://APP.example.com:443/clover/callback?merchant_id=M1&code=C1&state=\(state)", code: nil, endsLogin: true),
        Case(name: "state differs", url: "\(base)?merchant_id=M1&code=C1&state=other", code: .stateMismatch, endsLogin: false),
        Case(name: "state differs by one character", url: "\(base)?merchant_id=M1&code=C1&state=\(state.dropLast())v", code: .stateMismatch, endsLogin: false),
        Case(name: "state missing", url: "\(base)?merchant_id=M1&code=C1", code: .stateMismatch, endsLogin: false),
        Case(name: "state empty", url: "\(base)?merchant_id=M1&code=C1&state=", code: .stateMismatch, endsLogin: false),
        Case(name: "state repeated", url: "\(base)?merchant_id=M1&code=C1&state=\(state)&state=x", code: .authorization, endsLogin: false),
        Case(name: "another path", url: "https://app.example.com/clover/callback2?code=C1&state=\(state)", code: .authorization, endsLogin: false),
        Case(name: "a sub-path", url: "https://app.example.com/clover/callback/x?code=C1&state=\(state)", code: .authorization, endsLogin: false),
        Case(name: "another host", url: "https://evil.example.com/clover/callback?code=C1&state=\(state)", code: .authorization, endsLogin: false),
        Case(name: "another scheme", url: "http://app.example.com/clover/callback?code=C1&state=\(state)", code: .authorization, endsLogin: false),
        Case(name: "another port", url: "https://app.example.com:8443/clover/callback?code=C1&state=\(state)", code: .authorization, endsLogin: false),
        // Found by the derived tamper CLV-FULL-1~tamper.userinfo: the host is right, but a userinfo
        // (RFC 9110 §4.2.4: never generated, a phishing device) makes it another URL.
        Case(name: "a userinfo before the right host", url: "https://evil@app.example.com/clover/callback?merchant_id=M1&code=C1&state=\(state)", code: .authorization, endsLogin: false),
        Case(name: "error redirect", url: "\(base)?error=access_denied&state=\(state)", code: .authorization, endsLogin: true),
        Case(name: "error redirect without state: could come from any page; the login goes on", url: "\(base)?error=access_denied", code: .stateMismatch, endsLogin: false),
        Case(name: "error redirect with another state", url: "\(base)?error=access_denied&state=other", code: .stateMismatch, endsLogin: false),
        Case(name: "another client_id", url: "\(base)?merchant_id=M1&client_id=APP2&code=C1&state=\(state)", code: .authorization, endsLogin: true),
        Case(name: "no code", url: "\(base)?merchant_id=M1&client_id=APP1&state=\(state)", code: .authorization, endsLogin: true),
        Case(name: "empty code", url: "\(base)?merchant_id=M1&code=&state=\(state)", code: .authorization, endsLogin: true),
        Case(name: "no merchant_id", url: "\(base)?client_id=APP1&code=C1&state=\(state)", code: .authorization, endsLogin: true),
        Case(name: "dot-dot merchant_id", url: "\(base)?merchant_id=..&code=C1&state=\(state)", code: .authorization, endsLogin: true),
    ])
    func decisions(_ testCase: Case) throws {
        let decision = CloverRedirect.evaluate(URL(string: testCase.url)!, pending: Self.pending)
        switch decision {
        case .exchange(let code, let merchantID):
            #expect(testCase.code == nil)
            #expect(code == "C1")
            #expect(merchantID == "M1")
        case .reject(let error, let endsLogin):
            #expect(error.code == testCase.code)
            #expect(endsLogin == testCase.endsLogin)
            #expect(!error.description.contains("C1"))
        }
    }

    @Test("no login in progress: a state mismatch, nothing consumed")
    func noPendingLogin() {
        let url = URL(string: "\(Self.base)?merchant_id=M1&code=C1&state=\(Self.state)")!
        #expect(CloverRedirect.evaluate(url, pending: nil) == .reject(
            OAuthError(code: .stateMismatch, message: "no login is in progress; a redirect is accepted once, for the login that sent its state"),
            endsLogin: false
        ))
    }

    @Test("the error code and description are carried, sanitised")
    func errorText() {
        let url = URL(string: "\(Self.base)?error=access_denied&error_description=The+employee%0Adenied+access&state=\(Self.state)")!
        guard case .reject(let error, true) = CloverRedirect.evaluate(url, pending: Self.pending) else {
            Issue.record("not an error rejection")
            return
        }
        #expect(error.code == .authorization)
        #expect(error.message == "access_denied: The employee denied access")
    }

    @Test("state comparison is exact: a canonically equivalent spelling does not match")
    func exactState() {
        let composed = CloverPendingLogin(state: "caf\u{E9}", pkce: Self.pending.pkce, redirectURL: Self.pending.redirectURL,
                                          appID: "APP1", apiBaseURL: Self.pending.apiBaseURL)
        let decomposed = URL(string: "\(Self.base)?merchant_id=M1&code=C1&state=cafe%CC%81")!
        guard case .reject(let error, false) = CloverRedirect.evaluate(decomposed, pending: composed) else {
            Issue.record("accepted a different byte sequence")
            return
        }
        #expect(error.code == .stateMismatch)
    }
}
