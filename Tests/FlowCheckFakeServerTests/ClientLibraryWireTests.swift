import Foundation
import FlowCheckTestLanes
import Testing
import FlowCheckFakeServer
import FlowCheckTestSupport

/// Token requests as requests, httpx and authlib put them on the wire, over real loopback:
/// every spelling of Basic client credentials RFC 9110 §11 and RFC 6749 §2.3.1 allow is the
/// same credential (issue 14: Clever and Braintree refused all but one byte-exact header).
@Suite(.integration, .timeLimit(.minutes(20)))
struct ClientLibraryWireTests {
    /// Spellings of the scheme and of the separator.
    static let schemes: [(scheme: String, spaces: Int)] = [("Basic", 1), ("basic", 1), ("BASIC", 1), ("Basic", 2)]

    static let cleverRedirect = "clever-ios://oauth"
    /// An id whose form encoding differs from itself, as a Braintree-style id does.
    static let cleverClient = CleverFixture.Client(id: "ios$cle1", redirectURL: cleverRedirect)

    @Test(arguments: WireRequest.Library.allCases)
    func cleverAcceptsEverySpellingOfTheClient(_ library: WireRequest.Library) async throws {
        let env = CleverRig(fixture: CleverFixture(clients: [Self.cleverClient], users: CleverRig.fixture.users))
        try await env.world.serving {
            // requests sends the id raw; authlib quotes it (`$` as %24).
            for userPass in ["ios$cle1:", "ios%24cle1:"] {
                for (scheme, spaces) in Self.schemes {
                    let code = try env.code(CleverRig.authorizeParameters(clientID: Self.cleverClient.id, redirectURI: Self.cleverRedirect))
                    let body = FormBody.encode([("grant_type", "authorization_code"), ("code", code), ("redirect_uri", Self.cleverRedirect)])
                    let client = try await RawConnection.connect(port: env.world.port)
                    try await client.send(WireRequest.post(
                        "/oauth/tokens", port: env.world.port, library: library, contentType: "application/x-www-form-urlencoded",
                        authorization: WireRequest.basic(userPass, scheme: scheme, spaces: spaces), body: body
                    ))
                    let response = try #require(try await client.readResponse())
                    #expect(response.status == 200, "\(library) \(scheme)×\(spaces) \(userPass): \(response.bodyText)")
                    #expect(response.header("Cache-Control") == "no-store")
                }
            }
        }
    }

    @Test(arguments: WireRequest.Library.allCases)
    func braintreeAcceptsEverySpellingOfTheBackend(_ library: WireRequest.Library) async throws {
        let env = BraintreeRig()
        try await env.world.serving {
            let raw = BraintreeRig.clientID + ":" + BraintreeRig.secret
            let encoded = "client_id%24sandbox%24abc:client_secret%24sandbox%24s3cr3t"
            for userPass in [raw, encoded] {
                for (scheme, spaces) in Self.schemes {
                    let code = try BraintreeRig.code(in: env.authorize())
                    let client = try await RawConnection.connect(port: env.world.port)
                    try await client.send(WireRequest.post(
                        "/braintree/oauth/access_tokens", port: env.world.port, library: library,
                        contentType: "application/x-www-form-urlencoded",
                        authorization: WireRequest.basic(userPass, scheme: scheme, spaces: spaces),
                        body: FormBody.encode([("grant_type", "authorization_code"), ("code", code)])
                    ))
                    let response = try #require(try await client.readResponse())
                    #expect(response.status == 200, "\(library) \(scheme)×\(spaces) \(userPass): \(response.bodyText)")
                }
            }
        }
    }

    @Test func aWrongSecretIsStillRefusedHoweverItIsSpelled() async throws {
        let env = BraintreeRig()
        try await env.world.serving {
            for (scheme, spaces) in Self.schemes {
                let code = try BraintreeRig.code(in: env.authorize())
                let client = try await RawConnection.connect(port: env.world.port)
                try await client.send(WireRequest.post(
                    "/braintree/oauth/access_tokens", port: env.world.port, library: .requests,
                    contentType: "application/x-www-form-urlencoded",
                    authorization: WireRequest.basic(BraintreeRig.clientID + ":wrong", scheme: scheme, spaces: spaces),
                    body: FormBody.encode([("grant_type", "authorization_code"), ("code", code)])
                ))
                let response = try #require(try await client.readResponse())
                #expect(response.status == 401)
                #expect(response.header("WWW-Authenticate") == #"Basic realm="braintree""#)
                #expect(response.header("FlowCheck-Rule") == "token.invalid-client")
            }
        }
    }
}
