import Foundation
import FlowCheckTestLanes
import Testing
import FlowCheckFakeServer
@testable import FlowCheckHarnessHTTP
@testable import FlowCheckRunner
import FlowCheckTestSupport

/// The harness's own HTTP client: what it writes, what it reads, that it never follows a
/// redirect, its form encoding, and that a silent server is a named error, not a hang.
@Suite(.integration, .timeLimit(.minutes(20)))
struct HarnessHTTPClientTests {
    /// The client for tests that are not about its deadline: one that only detects a hang.
    /// The product's 10 s would be a speed test here, since the servers in these tests run on
    /// the test's tasks, which a pool busy with other suites' flows can delay for seconds.
    static let client = HarnessHTTPClient(timeout: HangBound.standard)

    /// That client, its sockets driven by `engine`.
    static func client(_ engine: HarnessHTTPClient.Engine) -> HarnessHTTPClient { client.on(engine) }

    // MARK: - Request bytes

    @Test func writesTheRequestLineHeadersAndBodyAsGiven() async throws {
        let listener = try RawListener()
        let served = listener.serve { peer in
            let request = try await peer.readRequest()
            try await peer.send("HTTP/1.1 204 No Content\r\n\r\n")
            return String(decoding: request ?? [], as: UTF8.self)
        }
        defer { served.cancel() }
        let body = Array("grant_type=client_credentials&scope=a+b".utf8)
        let request = HarnessHTTPRequest(
            method: "POST", url: URL(string: "http://127.0.0.1:\(listener.port)/oauth/token?x=%2F1&y")!,
            headers: [("Accept", "application/json"), ("Content-Type", "application/x-www-form-urlencoded"),
                      ("Host", "elsewhere"), ("Content-Length", "999"), ("Connection", "keep-alive")],
            body: body
        )
        let response = try await Self.client.send(request)
        #expect(response.status == 204)
        #expect(response.body.isEmpty)
        let expected = "POST /oauth/token?x=%2F1&y HTTP/1.1\r\n" +
            "Host: 127.0.0.1:\(listener.port)\r\n" +
            "Accept: application/json\r\n" +
            "Content-Type: application/x-www-form-urlencoded\r\n" +
            "Content-Length: \(body.count)\r\n" +
            "Connection: close\r\n\r\n" +
            "grant_type=client_credentials&scope=a+b"
        #expect(try await boundedValue(of: served, waitingFor: "the listener's one connection") == [expected])
    }

    @Test func aGETHasNoContentLengthAndAnEmptyPathIsSlash() throws {
        let target = try HarnessHTTPTarget(URL(string: "http://localhost")!)
        let head = try HarnessHTTPWire.head(of: HarnessHTTPRequest(url: URL(string: "http://localhost")!), target: target)
        #expect(String(decoding: head, as: UTF8.self) == "GET / HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
        let emptyPost = try HarnessHTTPWire.head(of: HarnessHTTPRequest(method: "POST", url: URL(string: "http://localhost:8080/a")!), target: HarnessHTTPTarget(URL(string: "http://localhost:8080/a")!))
        #expect(String(decoding: emptyPost, as: UTF8.self) == "POST /a HTTP/1.1\r\nHost: localhost:8080\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
    }

    @Test func refusesWhatCannotBeWrittenSafely() async throws {
        let url = URL(string: "http://127.0.0.1:9/")!
        let client = HarnessHTTPClient()
        await #expect(throws: HarnessHTTPError.invalidRequest("the X-Test header's value holds a line break or NUL")) {
            try await client.send(HarnessHTTPRequest(url: url, headers: [("X-Test", "a\r\nInjected: 1")]))
        }
        await #expect(throws: HarnessHTTPError.invalidRequest("\"GET /\" is not a method")) {
            try await client.send(HarnessHTTPRequest(method: "GET /", url: url))
        }
        await #expect(throws: HarnessHTTPError.invalidRequest("only http:// URLs are supported, not https:")) {
            try await client.send(HarnessHTTPRequest(url: URL(string: "https://127.0.0.1/")!))
        }
    }

    // MARK: - Response parsing

    static func parse(_ pieces: [String], method: String = "GET") throws -> HarnessHTTPResponse? {
        var parser = HarnessHTTPResponseParser(method: method)
        for piece in pieces {
            if let response = try parser.feed(Array(piece.utf8)) { return response }
        }
        return nil
    }

    @Test func readsAContentLengthBodyAndIgnoresWhatFollows() throws {
        let response = try #require(try Self.parse(["HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 5\r\nX-Twice: a\r\nx-twice: b\r\n\r\nhello, extra"]))
        #expect(response.status == 200)
        #expect(response.reason == "OK")
        #expect(response.text == "hello")
        #expect(response[header: "content-type"] == "text/plain")
        #expect(response[header: "X-TWICE"] == "a")
        #expect(response.headers.map(\.name) == ["Content-Type", "Content-Length", "X-Twice", "x-twice"])
    }

    @Test func readsAChunkedBodyWithExtensionsAndTrailers() throws {
        let wire = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n" +
            "5;name=value\r\nhello\r\n" + "7\r\n, world\r\n" + "A\r\n0123456789\r\n" + "0\r\nX-Checksum: 1\r\n\r\n"
        let response = try #require(try Self.parse([wire]))
        // Transfer-Encoding wins over Content-Length (RFC 9112 §6.3).
        #expect(response.text == "hello, world0123456789")
    }

    @Test func readsTheSameResponseSplitAtEveryByte() throws {
        let wire = "HTTP/1.1 302 Found\r\nLocation: /next?a=1\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n"
        let whole = try #require(try Self.parse([wire]))
        for cut in 1..<wire.utf8.count {
            let bytes = Array(wire.utf8)
            var parser = HarnessHTTPResponseParser(method: "GET")
            #expect(try parser.feed(bytes[..<cut]) == nil, "complete after only \(cut) bytes")
            #expect(try parser.feed(bytes[cut...]) == whole, "cut at \(cut)")
        }
        var parser = HarnessHTTPResponseParser(method: "GET")
        var answer: HarnessHTTPResponse?
        for byte in wire.utf8 where answer == nil { answer = try parser.feed([byte]) }
        #expect(answer == whole)
        #expect(whole.status == 302)
        #expect(whole[header: "location"] == "/next?a=1")
    }

    @Test func aBodyWithoutLengthRunsToTheClose() throws {
        var parser = HarnessHTTPResponseParser(method: "GET")
        #expect(try parser.feed(Array("HTTP/1.0 200 OK\r\n\r\npart one, ".utf8)) == nil)
        #expect(try parser.feed(Array("part two".utf8)) == nil)
        #expect(try parser.finish().text == "part one, part two")
    }

    @Test func noBodyForHEADOr204Or304AndInterimAnswersAreSkipped() throws {
        #expect(try Self.parse(["HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n"], method: "HEAD")?.body == [])
        #expect(try Self.parse(["HTTP/1.1 304 Not Modified\r\nContent-Length: 10\r\n\r\n"])?.status == 304)
        let final = try #require(try Self.parse(["HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\nok"]))
        #expect(final.status == 201)
        #expect(final.text == "ok")
        #expect(try Self.parse(["HTTP/1.1 200 OK\nContent-Length: 2\n\nok"])?.text == "ok", "bare LF line ends are accepted")
    }

    @Test func anEarlyCloseNamesWhatWasAwaited() throws {
        var parser = HarnessHTTPResponseParser(method: "GET")
        #expect(throws: HarnessHTTPError.closedEarly(awaiting: "the response's status line")) { try parser.finish() }
        _ = try parser.feed(Array("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc".utf8))
        #expect(throws: HarnessHTTPError.closedEarly(awaiting: "the response body (3 of 10 bytes received)")) { try parser.finish() }
        var chunked = HarnessHTTPResponseParser(method: "GET")
        _ = try chunked.feed(Array("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab".utf8))
        #expect(throws: HarnessHTTPError.closedEarly(awaiting: "the rest of a chunk of the response body (3 bytes to go)")) { try chunked.finish() }
    }

    /// A raw response, shown with its line ends escaped.
    struct Wire: CustomTestStringConvertible, Sendable {
        let text: String
        var testDescription: String { text.replacingOccurrences(of: "\r", with: "\\r").replacingOccurrences(of: "\n", with: "\\n") }
    }

    @Test(arguments: [
        "HTTP/2 200 OK\r\n\r\n",
        "HTTP/1.1 2000 OK\r\n\r\n",
        "ICY 200 OK\r\n\r\n",
        "HTTP/1.1 200 OK\r\nNo colon here\r\n\r\n",
        "HTTP/1.1 200 OK\r\nBad Name: x\r\n\r\n",
        "HTTP/1.1 200 OK\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabcd",
        "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n",
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabc\r\n0\r\n\r\n",
    ].map(Wire.init))
    func malformedResponsesAreErrors(_ wire: Wire) {
        #expect(throws: HarnessHTTPError.self) { try Self.parse([wire.text]) }
    }

    @Test func aResponseOverTheLimitIsRefused() {
        var parser = HarnessHTTPResponseParser(method: "GET", limit: 64)
        #expect(throws: HarnessHTTPError.responseTooLarge(limit: 64)) {
            _ = try parser.feed(Array("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n".utf8))
            _ = try parser.feed([UInt8](repeating: 0x61, count: 100))
        }
    }

    // MARK: - Over a socket

    @Test(arguments: HarnessHTTPClient.Engine.available) func readsAChunkedResponseThatArrivesInPieces(_ engine: HarnessHTTPClient.Engine) async throws {
        let listener = try RawListener()
        let served = listener.serve { peer in
            _ = try await peer.readRequest()
            for piece in ["HTTP/1.1 200 OK\r\nTrans", "fer-Encoding: chunked\r\n\r\n4\r", "\nWiki\r\n", "5\r\npedia\r\n0\r\n", "\r\n"] {
                try await peer.send(piece)
                try await Task.sleep(for: .milliseconds(20))   // apart, so they arrive in pieces
            }
            // Held open: the chunked framing, not a close, must end the response.
            _ = try await peer.readUntilClosed()
        }
        defer { served.cancel() }
        let response = try await Self.client(engine).send(HarnessHTTPRequest(url: URL(string: "http://127.0.0.1:\(listener.port)/wiki")!))
        #expect(response.text == "Wikipedia")
    }

    @Test(arguments: HarnessHTTPClient.Engine.available) func readsABodyThatEndsWithTheConnection(_ engine: HarnessHTTPClient.Engine) async throws {
        let listener = try RawListener()
        let served = listener.serve { peer in
            _ = try await peer.readRequest()
            try await peer.send("HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nfirst ")
            try await Task.sleep(for: .milliseconds(20))   // apart, so they arrive in pieces
            try await peer.send("second")
        }
        defer { served.cancel() }
        let response = try await Self.client(engine).send(HarnessHTTPRequest(url: URL(string: "http://127.0.0.1:\(listener.port)/")!))
        #expect(response.text == "first second")
    }

    @Test(arguments: HarnessHTTPClient.Engine.available) func neverFollowsARedirect(_ engine: HarnessHTTPClient.Engine) async throws {
        let listener = try RawListener()
        // Room for a second connection: the client must not make it.
        let served = listener.serve(2) { peer in
            let request = try await peer.readRequest()
            try await peer.send("HTTP/1.1 302 Found\r\nLocation: /elsewhere\r\nContent-Length: 0\r\n\r\n")
            return String(decoding: request ?? [], as: UTF8.self)
        }
        defer { served.cancel() }
        let response = try await Self.client(engine).send(HarnessHTTPRequest(url: URL(string: "http://127.0.0.1:\(listener.port)/start")!))
        #expect(response.status == 302)
        #expect(response[header: "Location"] == "/elsewhere")
        listener.close()
        let requests = try await boundedValue(of: served, waitingFor: "the listener, closed")
        #expect(requests.count == 1)
        #expect(requests.first?.hasPrefix("GET /start ") == true)
    }

    /// The real fake, with its redirect-loop fault: one request, the 302 handed back; and a form
    /// the fake's own decoder accepts.
    @Test(arguments: HarnessHTTPClient.Engine.available) func talksToTheRealFake(_ engine: HarnessHTTPClient.Engine) async throws {
        let server = FakeProviderServer(provider: FakeMoltin(fixture: MoltinFixture(clients: [.init(id: "store-1", secret: "sk a&b=c+d~é")])), now: { Date() })
        try await server.serving {
            let client = Self.client(engine)
            let form = HarnessFormEncoding.encode([("client_id", "store-1"), ("client_secret", "sk a&b=c+d~é"), ("grant_type", "client_credentials")])
            let token = try await client.send(HarnessHTTPRequest(
                method: "POST", url: server.baseURL.appendingPathComponent("oauth/access_token"),
                headers: [("Content-Type", "application/x-www-form-urlencoded")], body: Array(form.utf8)
            ))
            #expect(token.status == 200, "\(token.text)")
            #expect(token.text.contains("access_token"))

            server.inject(Fault(.redirectLoop, path: "/v1/products"))
            let before = server.exchanges.count
            let loop = try await client.send(HarnessHTTPRequest(url: server.baseURL.appendingPathComponent("v1/products")))
            #expect(loop.status == 302)
            #expect(loop[header: "Location"]?.hasSuffix("/v1/products") == true)
            #expect(server.exchanges.count == before + 1)
        }
    }

    // MARK: - Deadlines and cancellation

    @Test(arguments: HarnessHTTPClient.Engine.available) func aServerThatNeverAnswersIsANamedErrorNotAHang(_ engine: HarnessHTTPClient.Engine) async throws {
        let listener = try RawListener()
        let served = listener.serve { peer in
            _ = try await peer.readRequest()
            _ = try await peer.readUntilClosed()
        }
        defer { served.cancel() }
        // The error itself says the 0.25 s deadline ended the wait (no timed assertion: a loaded
        // machine may start the thread late, which is not what this test is about).
        await #expect(throws: HarnessHTTPError.timedOut(awaiting: "the response's status line", seconds: 0.25)) {
            try await HarnessHTTPClient(timeout: .milliseconds(250)).on(engine).send(HarnessHTTPRequest(url: URL(string: "http://127.0.0.1:\(listener.port)/")!))
        }
    }

    @Test(arguments: HarnessHTTPClient.Engine.available) func aStalledBodyIsANamedError(_ engine: HarnessHTTPClient.Engine) async throws {
        // The head and part of the body go out as the connection is accepted, from the
        // accepting thread: the 3 s deadline must pass while the body is awaited, and a reply
        // written from the test's task could come later than that on a busy pool.
        let listener = try RawListener()
        let served = listener.serve(sending: "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc") { peer in
            _ = try await peer.readRequest()
            _ = try await peer.readUntilClosed()
        }
        defer { served.cancel() }
        let error = await #expect(throws: HarnessHTTPError.self) {
            try await HarnessHTTPClient(timeout: .seconds(3)).on(engine).send(HarnessHTTPRequest(url: URL(string: "http://127.0.0.1:\(listener.port)/")!))
        }
        #expect(error == .timedOut(awaiting: "the response body (3 of 10 bytes received)", seconds: 3))
        #expect(error?.description == "no answer within 3 s while awaiting the response body (3 of 10 bytes received)")
    }

    @Test(arguments: HarnessHTTPClient.Engine.available) func aClosedPortIsRefusedAtOnce(_ engine: HarnessHTTPClient.Engine) async throws {
        let refusing = try RefusingPort()
        defer { withExtendedLifetime(refusing) {} }
        let port = refusing.port
        let error = await #expect(throws: HarnessHTTPError.self) {
            try await HarnessHTTPClient().on(engine).send(HarnessHTTPRequest(url: URL(string: "http://127.0.0.1:\(port)/")!))
        }
        guard case .connectFailed(let address, _)? = error else { Issue.record("\(String(describing: error))"); return }
        #expect(address == "127.0.0.1:\(port)")
    }

    @Test(arguments: HarnessHTTPClient.Engine.available) func cancellingTheCallerEndsTheWait(_ engine: HarnessHTTPClient.Engine) async throws {
        let arrived = OneShot<Void>()
        let listener = try RawListener()
        let served = listener.serve { peer in
            _ = try await peer.readRequest()
            arrived.fulfil(.success(()))
            _ = try await peer.readUntilClosed()
        }
        defer { served.cancel() }
        // A deadline far beyond the test: the error must be the cancellation, not the timeout.
        let task = Task {
            try await HarnessHTTPClient(timeout: HangBound.standard * 2).on(engine).send(HarnessHTTPRequest(url: URL(string: "http://127.0.0.1:\(listener.port)/")!))
        }
        // Bounded: if the request never arrives, the test fails naming the wait.
        do {
            try await arrived.value("the listener: no request")
        } catch {
            task.cancel()
            throw error
        }
        task.cancel()
        await #expect(throws: CancellationError.self) { try await boundedValue(of: task, waitingFor: "the cancelled send") }
    }

    @Test(arguments: HarnessHTTPClient.Engine.available) func aCancelledCallerNeverConnects(_ engine: HarnessHTTPClient.Engine) async throws {
        let listener = try RawListener()
        // Room for one connection, which must never come.
        let served = listener.serve(1) { peer in try await peer.readRequest() }
        defer { served.cancel() }
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await HarnessHTTPClient(timeout: HangBound.standard).on(engine).send(HarnessHTTPRequest(url: URL(string: "http://127.0.0.1:\(listener.port)/")!))
        }
        await #expect(throws: CancellationError.self) { try await boundedValue(of: task, waitingFor: "the send of a cancelled task") }
        listener.close()
        let requests = try await boundedValue(of: served, waitingFor: "the listener, closed")
        #expect(requests.isEmpty)
    }

    #if os(Linux)
    /// Each address of the host in turn, within one deadline (`localhost` as `::1`, refused,
    /// then `127.0.0.1`): the loop's exchange, handed two addresses, the first refusing.
    @Test func aRefusedAddressFallsBackToTheNext() async throws {
        let listener = try RawListener()
        let served = listener.serve { peer in
            _ = try await peer.readRequest()
            try await peer.send("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
        }
        defer { served.cancel() }
        let refusingPort = try RefusingPort()
        defer { withExtendedLifetime(refusingPort) {} }
        let closed = refusingPort.port
        let target = try HarnessHTTPTarget(URL(string: "http://127.0.0.1:\(listener.port)/")!)
        let refusing = try HarnessHTTPAddress.resolve(HarnessHTTPTarget(URL(string: "http://127.0.0.1:\(closed)/")!))
        let loop = try #require(EventLoop.shared)
        let exchange = HarnessHTTPLoopExchange(
            loop: loop, target: target, bytes: Array("GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".utf8), method: "GET",
            timeout: HangBound.standard, limit: 1 << 20, addresses: refusing + (try HarnessHTTPAddress.resolve(target)))
        // The exchange's own deadline (a hang detector) bounds the wait.
        let response = try await withCheckedThrowingContinuation { exchange.start($0) }
        #expect(response.text == "ok")

        // Every address refused: the last refusal is the error.
        let alone = HarnessHTTPLoopExchange(
            loop: loop, target: target, bytes: [], method: "GET", timeout: HangBound.standard, limit: 1 << 20, addresses: refusing)
        let error = await #expect(throws: HarnessHTTPError.self) {
            try await withCheckedThrowingContinuation { alone.start($0) }
        }
        guard case .connectFailed(let address, let reason)? = error else { Issue.record("\(String(describing: error))"); return }
        #expect(address == target.authority)
        #expect(reason.contains("refused"))
    }
    #endif

    // MARK: - Form encoding

    @Test(arguments: [
        ("", ""),
        ("abcXYZ019", "abcXYZ019"),
        ("*-._", "*-._"),
        ("a b", "a+b"),
        ("~", "%7E"),
        ("a+b", "a%2Bb"),
        ("&=%#?/:;,@!$'()[]", "%26%3D%25%23%3F%2F%3A%3B%2C%40%21%24%27%28%29%5B%5D"),
        ("\"<>\\^`{|}", "%22%3C%3E%5C%5E%60%7B%7C%7D"),
        ("\n\r\t\0", "%0A%0D%09%00"),
        ("é", "%C3%A9"),
        ("€", "%E2%82%AC"),
        ("😀", "%F0%9F%98%80"),
        ("\u{7F}", "%7F"),
    ])
    func formEncodesLikeTheWHATWGSerializer(_ vector: (String, String)) {
        #expect(HarnessFormEncoding.encode(vector.0) == vector.1)
    }

    @Test func formFieldsKeepTheirOrder() {
        #expect(HarnessFormEncoding.encode([("b", "2 3"), ("a", ""), ("c d", "x&y=z")]) == "b=2+3&a=&c+d=x%26y%3Dz")
    }
}

extension HarnessHTTPClient {
    /// This client, its sockets driven by `engine`.
    func on(_ engine: Engine) -> HarnessHTTPClient {
        var client = self
        client.engine = engine
        return client
    }
}
