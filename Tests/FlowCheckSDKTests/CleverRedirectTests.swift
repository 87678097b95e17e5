import Foundation
import FlowCheckTestLanes
import Testing
@testable import FlowCheckSDK
import FlowCheckTestSupport

/// The Instant Login redirect judge on its own, without I/O: CLE-STATE-MISMATCH, CLE-STATE-REPLAY
/// and the redirect URL rule, and whether each refusal keeps or ends the pending login.
@Suite("Clever redirect evaluation", .fast, .timeLimit(.minutes(20)))
struct CleverRedirectTests {
    static let state = "s7aTe-Value_0123456789abcdefghijklmnopqrstu"
    static let base = "clever-cle1://oauth"
    static let pending = CleverPendingLogin(
        state: state,
        redirectURL: URL(string: base)!,
        redirectURI: base,
        clientID: "cle-ios-1",
        baseURL: URL(string: "https://clever.com")!
    )

    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        let url: String
        let code: OAuthError.Code?
        let endsLogin: Bool
        var testDescription: String { name }
    }

    @Test("decisions", arguments: [
        Case(name: "good redirect", url: "\(base)?code=C1&state=\(state)", code: nil, endsLogin: true),
        Case(name: "state first, extra scope", url: "\(base)?state=\(state)&scope=read&code=C1", code: nil, endsLogin: true),
        Case(name: "scheme and host in capitals", url: "CLEVER-CLE1://OAUTH?code=C1&state=\(state)", code: nil, endsLogin: true),
        Case(name: "state differs", url: "\(base)?code=C1&state=other", code: .stateMismatch, endsLogin: false),
        Case(name: "state differs by one character", url: "\(base)?code=C1&state=\(state.dropLast())v", code: .stateMismatch, endsLogin: false),
        Case(name: "state in another case", url: "\(base)?code=C1&state=\(state.uppercased())", code: .stateMismatch, endsLogin: false),
        Case(name: "state missing", url: "\(base)?code=C1", code: .stateMismatch, endsLogin: false),
        Case(name: "state empty", url: "\(base)?code=C1&state=", code: .stateMismatch, endsLogin: false),
        Case(name: "state repeated", url: "\(base)?code=C1&state=\(state)&state=x", code: .authorization, endsLogin: false),
        Case(name: "malformed query (not UTF-8)", url: "\(base)?code=C1%FF&state=\(state)", code: .authorization, endsLogin: false),
        Case(name: "another scheme", url: "clever-cle2://oauth?code=C1&state=\(state)", code: .authorization, endsLogin: false),
        Case(name: "another host", url: "clever-cle1://evil?code=C1&state=\(state)", code: .authorization, endsLogin: false),
        Case(name: "a path added", url: "clever-cle1://oauth/x?code=C1&state=\(state)", code: .authorization, endsLogin: false),
        Case(name: "https look-alike", url: "https://oauth?code=C1&state=\(state)", code: .authorization, endsLogin: false),
        Case(name: "error redirect", url: "\(base)?error=access_denied&state=\(state)", code: .authorization, endsLogin: true),
        Case(name: "error redirect without state", url: "\(base)?error=access_denied", code: .stateMismatch, endsLogin: false),
        Case(name: "error redirect with another state", url: "\(base)?error=access_denied&state=other", code: .stateMismatch, endsLogin: false),
        Case(name: "no code", url: "\(base)?state=\(state)", code: .authorization, endsLogin: true),
        Case(name: "empty code", url: "\(base)?code=&state=\(state)", code: .authorization, endsLogin: true),
        Case(name: "an access token beside the code", url: "\(base)?code=C1&state=\(state)&access_token=T", code: .authorization, endsLogin: false),
        Case(name: "an id token beside the code", url: "\(base)?code=C1&state=\(state)&id_token=T", code: .authorization, endsLogin: false),
        Case(name: "a refresh token beside the code", url: "\(base)?code=C1&state=\(state)&refresh_token=T", code: .authorization, endsLogin: false),
        Case(name: "a client secret beside the code", url: "\(base)?code=C1&state=\(state)&client_secret=T", code: .authorization, endsLogin: false),
    ])
    func decisions(_ testCase: Case) throws {
        let url = try #require(URL(string: testCase.url))
        switch CleverRedirect.evaluate(url, pending: Self.pending) {
        case .exchange(let code):
            #expect(testCase.code == nil)
            #expect(code == "C1")
        case .reject(let error, let endsLogin):
            #expect(error.code == testCase.code)
            #expect(endsLogin == testCase.endsLogin)
            #expect(!error.description.contains("C1"))
        }
    }

    @Test("no login in progress: a state mismatch, whatever the URL")
    func noPendingLogin() throws {
        for text in ["\(Self.base)?code=C1&state=\(Self.state)", "https://elsewhere.example/?code=C1"] {
            guard case .reject(let error, false) = CleverRedirect.evaluate(try #require(URL(string: text)), pending: nil) else {
                Issue.record("accepted without a login")
                continue
            }
            #expect(error.code == .stateMismatch)
        }
    }

    @Test("the error code and description are carried, sanitised")
    func errorText() {
        let url = URL(string: "\(Self.base)?error=access_denied&error_description=The+user%0Adeclined&state=\(Self.state)")!
        guard case .reject(let error, true) = CleverRedirect.evaluate(url, pending: Self.pending) else {
            Issue.record("not an error rejection")
            return
        }
        #expect(error.code == .authorization)
        #expect(error.message == "access_denied: The user declined")
    }
}
