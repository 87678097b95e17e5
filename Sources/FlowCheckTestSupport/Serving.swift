import FlowCheckFakeServer

extension HTTPServerLimits {
    /// The default limits with every timeout at ``HangBound/standard``: for tests over loopback
    /// that are not about the server's own timeouts.
    ///
    /// A test's client makes each socket call from its task, which may wait for a pool thread
    /// for many seconds on a loaded machine; with the defaults (10 s mid-request, 30 s idle) the
    /// server could close a kept-alive connection between two calls, a speed test.
    ///
    /// ```swift
    /// let world = FakeProviderServer(provider: moltin, now: { clock.now }, limits: .hangBounded)
    /// var capped = HTTPServerLimits.hangBounded
    /// capped.maxConnections = 3
    /// ```
    public static var hangBounded: HTTPServerLimits {
        HTTPServerLimits(readTimeout: HangBound.seconds, requestHeaderTimeout: HangBound.seconds, idleTimeout: HangBound.seconds, requestBodyTimeout: HangBound.seconds, responseTimeout: HangBound.seconds)
    }
}

extension HTTPServer {
    /// Starts listening on an ephemeral loopback port, runs `body` with that port, then stops
    /// the server, whether `body` returned or threw.
    ///
    /// `stop()` waits for the server's connections to be closed, a blocking wait; here it
    /// runs on a thread of its own (``offThePool(_:within:_:)``), never on the cooperative
    /// pool a test's `defer` would block.
    ///
    /// ```swift
    /// let server = HTTPServer(responder: ClosureResponder { _ in .text(200, "ok") })
    /// try await server.serving { port in
    ///     let client = try await RawConnection.connect(port: port)
    ///     try await client.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
    ///     #expect(try await client.readResponse()?.status == 200)
    /// }
    /// ```
    /// - Parameter body: The test, given the port.
    /// - Returns: What `body` returned.
    /// - Throws: `HTTPServerError` when the server cannot start; what `body` threw.
    public func serving<Result>(_ body: (Int) async throws -> Result) async throws -> Result {
        let port = try start()
        return try await withTeardown({ try await body(port) }, offThePool: { [self] in stop() })
    }

    /// ``stop()`` on a thread of its own: it waits for every connection to be closed.
    public func stopOffThePool() async {
        _ = try? await offThePool("HTTPServer.stop") { [self] in stop() }
    }
}

extension FakeProviderServer {
    /// Starts listening on its loopback ports, runs `body`, then stops, whether `body` returned
    /// or threw; starting and stopping (both can wait for the server's threads) run on a thread
    /// of their own.
    ///
    /// ```swift
    /// let world = FakeProviderServer(provider: FakeMoltin(fixture: fixture), now: { clock.now })
    /// try await world.serving {
    ///     let client = try await RawConnection.connect(port: world.port)
    ///     ...
    /// }
    /// ```
    /// - Parameter body: The test.
    /// - Returns: What `body` returned.
    /// - Throws: `HTTPServerError` when the server cannot start; what `body` threw.
    public func serving<Result>(_ body: () async throws -> Result) async throws -> Result {
        // Starting a fake made unreachable beforehand waits for its listener to close again.
        try await offThePool("FakeProviderServer.start") { [self] in try start() }
        return try await withTeardown(body, offThePool: { [self] in stop() })
    }

    /// ``stop()`` on a thread of its own: it waits for every connection to be closed.
    public func stopOffThePool() async {
        _ = try? await offThePool("FakeProviderServer.stop") { [self] in stop() }
    }
}

/// Awaits `body`, then runs `teardown` on a thread of its own, whether `body` returned or
/// threw: for a server's `stop()` (it waits for the server's threads), which a test's `defer`
/// would run on the cooperative pool. A cancelled caller (a time limit) does not wait for it.
///
/// ```swift
/// let endpoints = try host.start()
/// try await withTeardown {
///     // ... the test, against endpoints ...
/// } offThePool: {
///     host.stop()
/// }
/// ```
/// - Parameters:
///   - body: The test.
///   - teardown: The blocking clean-up.
/// - Returns: What `body` returned.
/// - Throws: What `body` threw.
public func withTeardown<Result>(
    _ body: () async throws -> Result,
    offThePool teardown: @escaping @Sendable () -> Void
) async throws -> Result {
    let outcome: Swift.Result<Result, any Error>
    do {
        outcome = .success(try await body())
    } catch {
        outcome = .failure(error)
    }
    _ = try? await offThePool("teardown", teardown)
    return try outcome.get()
}
