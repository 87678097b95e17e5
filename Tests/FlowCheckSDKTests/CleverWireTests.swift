import Foundation
import FlowCheckTestLanes
import Testing
@testable import FlowCheckSDK
import FlowCheckTestSupport

/// The Clever wire contract on its own: the Basic header, the token request and the answer's
/// mapping (seed 004 steps 3 to 5).
@Suite("Clever wire", .fast, .timeLimit(.minutes(20)))
struct CleverWireTests {
    struct BasicCase: CustomTestStringConvertible, Sendable {
        let name: String
        let clientID: String
        let header: String
        var testDescription: String { name }
    }

    /// Expected values computed independently (Python `base64.b64encode(quote_plus(id) + ":")`);
    /// the first is RFC 6749 §2.3.1's own example client ID with a blank secret.
    @Test("Basic header is base64(encodeComponent(client ID) + \":\")", arguments: [
        BasicCase(name: "RFC 6749 §2.3.1 client ID", clientID: "s6BhdRkqt3", header: "Basic czZCaGRSa3F0Mzo="),
        BasicCase(name: "colon", clientID: "app:ios", header: "Basic YXBwJTNBaW9zOg=="),
        BasicCase(name: "at sign", clientID: "dev@school", header: "Basic ZGV2JTQwc2Nob29sOg=="),
        BasicCase(name: "space", clientID: "my app", header: "Basic bXkrYXBwOg=="),
        BasicCase(name: "non-ASCII", clientID: "clé-Ω", header: "Basic Y2wlQzMlQTktJUNFJUE5Og=="),
    ])
    func basicHeader(_ testCase: BasicCase) throws {
        let header = CleverWire.basicAuthorization(clientID: testCase.clientID)
        #expect(header == testCase.header)
        #expect(header == "Basic " + Data((FormURLEncoding.encodeComponent(testCase.clientID) + ":").utf8).base64EncodedString())
        let decoded = try #require(Data(base64Encoded: String(header.dropFirst(6))).map { String(decoding: $0, as: UTF8.self) })
        #expect(decoded.hasSuffix(":"), "the secret after the colon is blank")
        #expect(decoded.filter { $0 == ":" }.count == 1, "a colon in the client ID is encoded, so it cannot end the user name")
    }

    @Test("authorize URL: seed 004's order, lower-case code, form-encoded values")
    func authorizeURL() throws {
        let url = try CleverWire.authorizeURL(
            baseURL: URL(string: "https://clever.com")!,
            clientID: "abc 1&2",
            redirectURI: "clever-abc://oauth",
            state: "st+te/="
        )
        #expect(url.absoluteString == "https://clever.com/oauth/authorize?response_type=code&client_id=abc+1%262"
            + "&redirect_uri=clever-abc%3A%2F%2Foauth&state=st%2Bte%2F%3D")
    }

    @Test("token request: POST /oauth/tokens, Basic, JSON, exactly three keys")
    func tokenRequest() throws {
        let request = try CleverWire.tokenRequest(
            baseURL: URL(string: "https://clever.com")!,
            clientID: "s6BhdRkqt3",
            code: "c0de",
            redirectURI: "clever-abc://oauth"
        )
        #expect(request.method == "POST")
        #expect(request.url.absoluteString == "https://clever.com/oauth/tokens")
        #expect(request.header("Authorization") == "Basic czZCaGRSa3F0Mzo=")
        #expect(request.header("Content-Type") == "application/json")
        #expect(request.bodyText == #"{"code":"c0de","grant_type":"authorization_code","redirect_uri":"clever-abc://oauth"}"#)
    }

    struct ResponseCase: CustomTestStringConvertible, Sendable {
        let name: String
        let status: Int
        let body: String
        let code: OAuthError.Code?
        let message: String?
        var testDescription: String { name }
    }

    @Test("token answers", arguments: [
        ResponseCase(name: "200", status: 200, body: #"{"access_token":"AT","token_type":"bearer"}"#, code: nil, message: nil),
        ResponseCase(name: "200 without token_type", status: 200, body: #"{"access_token":"AT"}"#, code: .invalidResponse, message: nil),
        ResponseCase(name: "200 without access_token", status: 200, body: #"{"token_type":"bearer"}"#, code: .invalidResponse, message: nil),
        ResponseCase(name: "200 not JSON", status: 200, body: "<html>ok</html>", code: .invalidResponse, message: nil),
        ResponseCase(name: "200 a JSON array", status: 200, body: "[]", code: .invalidResponse, message: nil),
        ResponseCase(name: "400 invalid_grant", status: 400, body: #"{"error":"invalid_grant"}"#, code: .tokenEndpoint, message: "invalid_grant"),
        ResponseCase(name: "401 invalid_client", status: 401, body: #"{"error":"invalid_client","error_description":"Unknown"}"#, code: .tokenEndpoint, message: "invalid_client: Unknown"),
        ResponseCase(name: "429 still the token endpoint's verdict", status: 429, body: "{}", code: .tokenEndpoint, message: nil),
        ResponseCase(name: "500", status: 500, body: #"{"error":"server_error"}"#, code: .serverError, message: "server_error"),
        ResponseCase(name: "503 not JSON", status: 503, body: "Service Unavailable", code: .serverError, message: nil),
        ResponseCase(name: "302", status: 302, body: "", code: .invalidResponse, message: nil),
    ])
    func answers(_ testCase: ResponseCase) throws {
        let response = TransportResponse(status: testCase.status, body: Data(testCase.body.utf8))
        do {
            let token = try CleverWire.token(from: response, secrets: [])
            #expect(testCase.code == nil)
            #expect(token == CleverToken(accessToken: "AT", tokenType: "bearer"))
        } catch let error as OAuthError {
            #expect(error.code == testCase.code)
            #expect(error.status == testCase.status)
            if let message = testCase.message {
                #expect(error.message == message)
            }
        }
    }

    @Test("a server echoing the code gets it scrubbed from the error")
    func scrubsCode() throws {
        let response = TransportResponse(status: 400, body: Data(#"{"error":"invalid_grant","error_description":"code c0de-XYZ is used"}"#.utf8))
        let error = try #require(throws: OAuthError.self) { try CleverWire.token(from: response, secrets: ["c0de-XYZ"]) }
        #expect(error.message == "invalid_grant: code <redacted> is used")
    }

    @Test("the token's description, debug description and mirror hide the access token")
    func redactedToken() {
        let token = CleverToken(accessToken: "AT-s3cret", tokenType: "bearer")
        var dumped = ""
        dump(token, to: &dumped)
        for text in [token.description, token.debugDescription, String(describing: token), String(reflecting: token), dumped] {
            #expect(!text.contains("AT-s3cret"))
            #expect(text.contains("bearer"))
        }
    }
}
