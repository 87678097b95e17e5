import Foundation
import FlowCheckTestLanes
import Testing
import FlowCheckFakeServer
import FlowCheckTestSupport

/// The parser is pure, so every framing rule is checked here without sockets.
@Suite(.fast, .timeLimit(.minutes(20)))
struct HTTPRequestParserTests {
    let parser = HTTPRequestParser()

    private func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    private func status(_ result: HTTPParseResult) -> Int? {
        if case .failure(let status, _, _) = result { return status }
        return nil
    }

    @Test func parsesRequestWithBody() throws {
        let raw = "POST /oauth/access_token?x=1 HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 9\r\n\r\na=1&b=x+y"
        guard case .request(let request, let consumed) = parser.parse(bytes(raw)) else {
            Issue.record("expected a request")
            return
        }
        #expect(consumed == raw.utf8.count)
        #expect(request.method == "POST")
        #expect(request.target == "/oauth/access_token?x=1")
        #expect(request.version == "HTTP/1.1")
        #expect(request.path == "/oauth/access_token")
        #expect(request.headers["content-type"] == "application/x-www-form-urlencoded")
        #expect(request.body == Data("a=1&b=x+y".utf8))
        let fields = try #require(request.formFields)
        #expect(fields.map(\.name) == ["a", "b"])
        #expect(fields.map(\.value) == ["1", "x y"])
    }

    @Test func parsesTwoPipelinedRequests() {
        let first = "POST /a HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\n\r\nabc"
        let second = "GET /b HTTP/1.1\r\nHost: h\r\n\r\n"
        let buffer = bytes(first + second)
        guard case .request(let one, let consumed) = parser.parse(buffer) else {
            Issue.record("expected the first request")
            return
        }
        #expect(one.path == "/a")
        #expect(one.body == Data("abc".utf8))
        #expect(consumed == first.utf8.count)
        guard case .request(let two, let rest) = parser.parse(Array(buffer[consumed...])) else {
            Issue.record("expected the second request")
            return
        }
        #expect(two.path == "/b")
        #expect(two.body.isEmpty)
        #expect(rest == second.utf8.count)
    }

    @Test(arguments: [
        "",
        "GET",
        "GET / HTTP/1.1\r\n",
        "GET / HTTP/1.1\r\nHost: h\r\n",
        "GET / HTTP/1.1\r\nHost: h\r\n\r",
        "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 10\r\n\r\n",
        "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 10\r\n\r\n12345",
        "\r\n",
    ])
    func partialInputNeedsMoreData(raw: String) {
        #expect(parser.parse(bytes(raw)) == .needMoreData)
    }

    @Test func skipsLeadingEmptyLines() {
        let raw = "\r\n\r\nGET / HTTP/1.1\r\nHost: h\r\n\r\n"
        guard case .request(let request, let consumed) = parser.parse(bytes(raw)) else {
            Issue.record("expected a request")
            return
        }
        #expect(request.path == "/")
        #expect(consumed == raw.utf8.count)
    }

    @Test(arguments: [
        // Malformed request lines.
        ("GET /\r\nHost: h\r\n\r\n", 400),
        ("GET  / HTTP/1.1\r\nHost: h\r\n\r\n", 400),
        ("GET / HTTP/1.1 extra\r\nHost: h\r\n\r\n", 400),
        ("G(T / HTTP/1.1\r\nHost: h\r\n\r\n", 400),
        ("GET nope HTTP/1.1\r\nHost: h\r\n\r\n", 400),
        ("GET / HTTX/1.1\r\nHost: h\r\n\r\n", 400),
        ("GET / HTTP/1.10\r\nHost: h\r\n\r\n", 400),
        ("garbage\r\n", 400),
        // Bad header lines.
        ("GET / HTTP/1.1\r\nHost: h\r\nNoColon\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\nHost: h\r\nBad Name: x\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\nHost: h\r\nName : x\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\nHost: h\r\n: x\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\nHost: h\r\nA: b\r\n folded\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\nHost: h\r\nA: b\nc\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\nHost: h\r\nA: b\u{7F}\r\n\r\n", 400),
        // Host rules.
        ("GET / HTTP/1.1\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", 400),
        // Versions.
        ("GET / HTTP/2.0\r\nHost: h\r\n\r\n", 505),
        ("GET / HTTP/1.2\r\nHost: h\r\n\r\n", 505),
        ("GET / HTTP/0.9\r\nHost: h\r\n\r\n", 505),
        // Transfer-Encoding: chunked only, never with Content-Length.
        ("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: gzip, chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n", 501),
        ("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked, gzip\r\n\r\n", 400),
        ("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n3\r\nabc\r\n0\r\n\r\n", 400),
        // RFC 9112 §6.1: a request whose codings do not end in chunked MUST be answered 400.
        ("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: gzip\r\nContent-Length: 3\r\n\r\nabc", 400),
        // Content-Length.
        ("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: -1\r\n\r\n", 400),
        ("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: +1\r\n\r\nx", 400),
        ("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 1x\r\n\r\nx", 400),
        ("POST / HTTP/1.1\r\nHost: h\r\nContent-Length:\r\n\r\n", 400),
        ("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabcd", 400),
        ("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 3, 4\r\n\r\nabcd", 400),
        ("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 99999999999999999999999999999\r\n\r\n", 413),
        ("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 1048577\r\n\r\n", 413),
    ])
    func rejects(raw: String, expected: Int) {
        #expect(status(parser.parse(bytes(raw))) == expected)
    }

    @Test func acceptsAgreeingDuplicateContentLengths() {
        let raw = "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\nContent-Length: 003, 3\r\n\r\nabc"
        guard case .request(let request, _) = parser.parse(bytes(raw)) else {
            Issue.record("expected a request")
            return
        }
        #expect(request.body == Data("abc".utf8))
    }

    @Test func bodyAtTheLimitIsAccepted() {
        let parser = HTTPRequestParser(limits: HTTPServerLimits(maxBodyBytes: 4))
        let ok = "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 4\r\n\r\nabcd"
        let tooBig = "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n\r\nabcde"
        #expect(status(parser.parse(bytes(ok))) == nil)
        #expect(status(parser.parse(bytes(tooBig))) == 413)
    }

    @Test func oversizedHeadersAre431() {
        let parser = HTTPRequestParser(limits: HTTPServerLimits(maxHeaderBytes: 64))
        let complete = "GET / HTTP/1.1\r\nHost: h\r\nX-Long: \(String(repeating: "a", count: 64))\r\n\r\n"
        #expect(status(parser.parse(bytes(complete))) == 431)
        // Still incomplete but already over the limit: answered without waiting for more.
        let incomplete = "GET / HTTP/1.1\r\nHost: h\r\nX-Long: \(String(repeating: "a", count: 64))"
        #expect(status(parser.parse(bytes(incomplete))) == 431)
        // The request line alone cannot fit in the limit: the target is what is too long.
        let longLine = "GET /\(String(repeating: "a", count: 100))"
        #expect(status(parser.parse(bytes(longLine))) == 414)
    }

    @Test func headAtTheLimitIsAccepted() {
        let raw = "GET / HTTP/1.1\r\nHost: h\r\n\r\n"
        let parser = HTTPRequestParser(limits: HTTPServerLimits(maxHeaderBytes: raw.utf8.count))
        #expect(status(parser.parse(bytes(raw))) == nil)
        let tighter = HTTPRequestParser(limits: HTTPServerLimits(maxHeaderBytes: raw.utf8.count - 1))
        #expect(status(tighter.parse(bytes(raw))) == 431)
    }

    @Test func keepsHeaderOrderSpellingAndTrimsWhitespace() {
        let raw = "GET / HTTP/1.1\r\nHost: h\r\nX-A:\t one two \t\r\nx-a: 2\r\nEmpty:\r\n\r\n"
        guard case .request(let request, _) = parser.parse(bytes(raw)) else {
            Issue.record("expected a request")
            return
        }
        #expect(request.headers.pairs.map(\.name) == ["Host", "X-A", "x-a", "Empty"])
        #expect(request.headers.values(for: "X-A") == ["one two", "2"])
        #expect(request.headers["empty"] == "")
    }

    @Test func http10NeedsNoHost() {
        guard case .request(let request, _) = parser.parse(bytes("GET /x HTTP/1.0\r\n\r\n")) else {
            Issue.record("expected a request")
            return
        }
        #expect(request.version == "HTTP/1.0")
    }

    @Test func absoluteFormTargetYieldsPath() {
        guard case .request(let request, _) = parser.parse(bytes("GET http://127.0.0.1:8080/v1/products?a=b HTTP/1.1\r\nHost: h\r\n\r\n")) else {
            Issue.record("expected a request")
            return
        }
        #expect(request.path == "/v1/products")
        #expect(request.queryItem("a") == "b")
    }

    /// A cheap deterministic sweep standing in for the fuzzer: no input may trap.
    @Test func neverTrapsOnMutatedInput() {
        let seeds = [
            "POST /oauth/access_token HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n\r\nab%zz",
            "GET /v1/products?q=%E2%82%AC HTTP/1.0\r\nConnection: keep-alive\r\n\r\n",
        ].map { Array($0.utf8) }
        var generator = SplitMix64(seed: 42)
        let alphabet: [UInt8] = [0x00, 0x0D, 0x0A, 0x20, 0x3A, 0x2C, 0x30, 0x39, 0x7F, 0xFF, 0xC3, 0x25]
        var outcomes = 0
        for seed in seeds {
            for _ in 0..<2_000 {
                var input = seed
                for _ in 0..<Int.random(in: 1...4, using: &generator) {
                    let position = Int.random(in: 0..<input.count, using: &generator)
                    switch Int.random(in: 0..<3, using: &generator) {
                    case 0: input[position] = alphabet.randomElement(using: &generator) ?? 0
                    case 1: input.insert(UInt8.random(in: 0...255, using: &generator), at: position)
                    default: input.removeSubrange(position..<min(input.count, position + 3))
                    }
                    if input.isEmpty { input = [0x0D] }
                }
                switch parser.parse(input) {
                case .request(let request, let consumed):
                    #expect(consumed <= input.count)
                    _ = (request.path, request.query, request.formFields, request.jsonFields())
                case .needMoreData, .failure:
                    break
                }
                outcomes += 1
            }
        }
        #expect(outcomes == 4_000)
    }
}
