import Foundation
import FlowCheckTestLanes
import Testing
import FlowCheckFakeServer
import FlowCheckTestSupport

/// Issue 14's framing rules: chunked request bodies (RFC 9112 §7.1), bare-LF heads (§2.2),
/// 414 for an over-long target and HEAD answered as GET without a body.
@Suite(.integration, .timeLimit(.minutes(20)))
struct HTTPFramingTests {
    let parser = HTTPRequestParser(limits: HTTPServerLimits(maxHeaderBytes: 256, maxBodyBytes: 16))

    private func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    private func failure(_ result: HTTPParseResult) -> (status: Int, rule: FlowCheckRule)? {
        if case .failure(let status, _, let rule) = result { return (status, rule) }
        return nil
    }

    // MARK: - Chunked

    @Test func decodesChunksIgnoringExtensionsAndTrailers() throws {
        let raw = "POST /t HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: Chunked\r\n\r\n5;a=b\r\nhello\r\n1 ; q=\"x\"\r\n \r\nA\r\n0123456789\r\n0\r\nX-T: 1\r\nY-T: 2\r\n\r\n"
        guard case .request(let request, let consumed) = parser.parse(bytes(raw + "GET / HTTP/1.1\r\nHost: h\r\n\r\n")) else {
            Issue.record("expected a request")
            return
        }
        #expect(request.body == Data("hello 0123456789".utf8))
        #expect(consumed == raw.utf8.count, "the next pipelined request starts right after the trailers")
    }

    @Test func waitsForEveryPartOfAChunkedBody() {
        let raw = "POST /t HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n"
        let all = bytes(raw)
        let headEnd = raw.utf8.count - "5\r\nhello\r\n0\r\n\r\n".utf8.count
        for cut in headEnd..<all.count {
            #expect(parser.parse(Array(all[..<cut])) == .needMoreData, "cut at \(cut)")
        }
        #expect(failure(parser.parse(all)) == nil)
    }

    @Test(arguments: [
        ("zz\r\n", 400, FlowCheckRule.httpMalformedChunk),
        ("5 x\r\nhello\r\n0\r\n\r\n", 400, .httpMalformedChunk),
        ("5\r\nhelloXX0\r\n\r\n", 400, .httpMalformedChunk),
        ("-5\r\n", 400, .httpMalformedChunk),
        ("11\r\n", 413, .httpBodyTooLarge),
        ("10\r\n0123456789abcdef\r\n1\r\n", 413, .httpBodyTooLarge),
        ("ffffffffffffffffffffffff\r\n", 413, .httpBodyTooLarge),
    ] as [(String, Int, FlowCheckRule)])
    func refusesMalformedOrOversizedChunks(body: String, status: Int, rule: FlowCheckRule) {
        let raw = "POST /t HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n" + body
        #expect(failure(parser.parse(bytes(raw)))?.status == status)
        #expect(failure(parser.parse(bytes(raw)))?.rule == rule)
    }

    @Test func anEndlessChunkLineOrTrailerIsRefused() {
        let big = HTTPRequestParser()
        let line = "POST /t HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n1;" + String(repeating: "x", count: 5000)
        #expect(failure(big.parse(bytes(line)))?.rule == .httpMalformedChunk)
        let trailer = "POST /t HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nX: " + String(repeating: "x", count: 20_000)
        #expect(failure(big.parse(bytes(trailer)))?.rule == .httpHeadTooLarge)
    }

    // MARK: - Bare LF, 414

    @Test func acceptsABareLFHead() throws {
        let raw = "\nPOST /t HTTP/1.1\nHost: h\r\nContent-Length: 2\n\nokGET"
        guard case .request(let request, let consumed) = parser.parse(bytes(raw)) else {
            Issue.record("expected a request")
            return
        }
        #expect(request.method == "POST")
        #expect(request.headers["Host"] == "h")
        #expect(request.body == Data("ok".utf8))
        #expect(consumed == raw.utf8.count - 3)
    }

    @Test func aCRInsideALineIsStill400() {
        #expect(failure(parser.parse(bytes("GET / HTTP/1.1\nHost: h\rx\n\n")))?.status == 400)
    }

    @Test func anOverLongTargetIs414AndOverLongFieldsAre431() {
        #expect(failure(parser.parse(bytes("GET /" + String(repeating: "a", count: 300))))?.status == 414)
        // A request line that fits, but not with its fields, is the fields' fault.
        #expect(failure(parser.parse(bytes("GET /" + String(repeating: "a", count: 200) + " HTTP/1.1\r\nHost: h\r\nX: " + String(repeating: "b", count: 60) + "\r\n\r\n")))?.rule == .httpHeadTooLarge)
        #expect(failure(parser.parse(bytes("GET /" + String(repeating: "a", count: 250) + " HTTP/1.1\r\nHost: h\r\n\r\n")))?.rule == .httpTargetTooLong)
        #expect(failure(parser.parse(bytes("GET / HTTP/1.1\r\nHost: h\r\nX: " + String(repeating: "b", count: 300) + "\r\n\r\n")))?.rule == .httpHeadTooLarge)
    }

    // MARK: - Over loopback

    @Test func bareLFHeadIsAnsweredAtOnceOverLoopback() async throws {
        let env = CloverRig()
        try await env.world.serving {
            // A server waiting for a CRLF would answer 408 once its read timeout passed.
            let client = try await RawConnection.connect(port: env.world.port)
            try await client.send("GET /v3/merchants/M1 HTTP/1.1\nHost: h\n\n")
            let response = try #require(try await client.readResponse())
            #expect(response.status == 401, "answered, not left waiting for a CRLF until 408")
        }
    }

    @Test func aTwentyKiBTargetIs414OverLoopback() async throws {
        let world = FakeProviderServer(provider: FakeMoltin(fixture: MoltinFixture(clients: [])), now: { Date(timeIntervalSince1970: 0) }, limits: .hangBounded)
        try await world.serving {
            let client = try await RawConnection.connect(port: world.port)
            try await client.send("GET /v1/products?q=" + String(repeating: "a", count: 20 * 1024) + " HTTP/1.1\r\nHost: h\r\n\r\n")
            let response = try #require(try await client.readResponse())
            #expect(response.status == 414)
            #expect(response.header("FlowCheck-Rule") == "http.target-too-long")
        }
    }

    @Test func headIsAnsweredAsGetWithoutABody() async throws {
        let env = CloverRig()
        try await env.world.serving {
            let pair = try env.loggedIn()
            let client = try await RawConnection.connect(port: env.world.port)
            try await client.send("GET /v3/merchants/M1 HTTP/1.1\r\nHost: h\r\nAuthorization: Bearer \(pair.access)\r\n\r\n")
            let get = try #require(try await client.readResponse())
            try await client.send("HEAD /v3/merchants/M1 HTTP/1.1\r\nHost: h\r\nAuthorization: Bearer \(pair.access)\r\n\r\n")
            let head = try #require(try await client.readResponse(toHEAD: true))
            #expect(get.status == 200)
            #expect(head.status == 200)
            #expect(head.header("Content-Length") == get.header("Content-Length"))
            // The connection is still in step: had a body followed the HEAD answer, it would be read
            // here as the next response's head.
            try await client.send("GET /v3/merchants/M1 HTTP/1.1\r\nHost: h\r\n\r\n")
            #expect(try await client.readResponse()?.status == 401)
            #expect(env.world.exchanges.map(\.request.method).suffix(3) == ["GET", "HEAD", "GET"])
        }
    }
}
