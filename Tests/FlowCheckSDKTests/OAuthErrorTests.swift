import Foundation
import FlowCheckTestLanes
import Testing
import FlowCheckFakeServer
import FlowCheckSDK

@Suite("OAuthError", .fast, .timeLimit(.minutes(20)))
struct OAuthErrorTests {
    struct CodeCase: CustomTestStringConvertible, Sendable {
        let code: OAuthError.Code
        let name: String
        var testDescription: String { name }
    }

    @Test("code names match their static lets", arguments: [
        CodeCase(code: .transport, name: "transport"),
        CodeCase(code: .serverError, name: "serverError"),
        CodeCase(code: .invalidResponse, name: "invalidResponse"),
        CodeCase(code: .tokenEndpoint, name: "tokenEndpoint"),
        CodeCase(code: .tokenRejected, name: "tokenRejected"),
        CodeCase(code: .httpStatus, name: "httpStatus"),
        CodeCase(code: .notLoggedIn, name: "notLoggedIn"),
        CodeCase(code: .storage, name: "storage"),
        CodeCase(code: .configuration, name: "configuration"),
        CodeCase(code: .authorization, name: "authorization"),
        CodeCase(code: .stateMismatch, name: "stateMismatch"),
    ])
    func codeNames(_ testCase: CodeCase) {
        #expect(testCase.code.name == testCase.name)
        #expect(testCase.code.description == testCase.name)
    }

    @Test("codes are distinct")
    func codesDistinct() {
        let codes: Set<OAuthError.Code> = [
            .transport, .serverError, .invalidResponse, .tokenEndpoint, .tokenRejected,
            .httpStatus, .notLoggedIn, .storage, .configuration, .authorization, .stateMismatch,
        ]
        #expect(codes.count == 11)
    }

    @Test("description shows code, status and message")
    func descriptionFormat() {
        let error = OAuthError(code: .tokenEndpoint, message: "Invalid client id or secret", status: 401)
        #expect(error.description == "tokenEndpoint [HTTP 401]: Invalid client id or secret")
        #expect(OAuthError(code: .transport, message: "could not connect").description == "transport: could not connect")
        #expect(error == OAuthError(code: .tokenEndpoint, message: "Invalid client id or secret", status: 401))
        #expect(error != OAuthError(code: .tokenEndpoint, message: "Invalid client id or secret", status: 400))
    }

    /// Every error the Moltin client can produce, driven through the real fake, must keep the
    /// client secret and every token out of its description, even when the server echoes them.
    /// An echoing server is what no fake is: its answers are raw wire answers in front of it.
    @Test("no error description contains a secret, even when the server echoes one")
    func descriptionsHoldNoSecret() async throws {
        let world = try MoltinWorld(rawAnswers: true)
        try await world.authenticate()
        let token = try #require(try await world.client.currentToken())
        let secret = MoltinWorld.clientSecret
        let echoes: [@Sendable (HTTPRequest) -> HTTPResponse] = [
            { _ in .rawJSON(401, #"{"status":false,"error":"Invalid client secret \#(secret)"}"#) },
            { request in .rawJSON(500, #"{"error":"boom for \#(request.bodyText)"}"#) },
            { request in .rawJSON(400, #"{"status":false,"errors":["bad header \#(request.headers["Authorization"] ?? "")"]}"#) },
            { request in .rawJSON(401, #"{"status":false,"error":"Access token \#(request.bearerToken ?? "") is not valid"}"#) },
            { _ in .text(200, "<html>\(secret)</html>", contentType: "text/html") },
        ]
        var errors: [OAuthError] = []
        for echo in echoes {
            world.raw?.set { echo($0) }
            for operation in 0..<3 {
                do {
                    switch operation {
                    case 0: try await world.authenticate()
                    case 1: try await world.client.refreshToken()
                    default: _ = try await world.client.products()
                    }
                } catch let error as OAuthError {
                    errors.append(error)
                }
            }
        }
        world.raw?.set(nil)
        world.tap.beforeSend { _ in throw OAuthError(code: .transport, message: "failed to send \(secret)") }
        if let error = await oauthError({ try await world.client.products() }) {
            errors.append(error)
        }
        #expect(errors.count == echoes.count * 3 + 1)
        let encodedSecret = FormURLEncoding.encodeComponent(secret)
        for error in errors {
            #expect(!error.description.contains(secret), "\(error)")
            #expect(!error.description.contains(encodedSecret), "\(error)")
            #expect(!error.description.contains(token.accessToken), "\(error)")
        }
        // The server's own words still come through, minus the secret.
        #expect(errors.contains { $0.message == "Invalid client secret <redacted>" })
    }
}
