import Foundation
import FlowCheckTestSupport

/// A minimal HTTP/1.1 responder on 127.0.0.1 for one connection, on FlowCheckTestSupport's
/// `RawListener`: accepts, reads the request (head plus `Content-Length` body), writes a fixed
/// response, closes. Only for `URLSessionTransport` tests of raw wire answers; the fakes serve
/// everything else.
///
/// Serving starts at once, on a task whose every socket call runs on a thread of its own and is
/// bounded by `HangBound.standard`; ``Served/value()`` bounds the wait for it once more, so a
/// wedged responder fails the test by name.
///
/// ```swift
/// let responder = try LoopbackResponder(response: "HTTP/1.1 204 No Content\r\nContent-Length: 0\r\n\r\n")
/// let served = responder.serveOnce()
/// let response = try await transport.send(TransportRequest(url: responder.url(path: "/x")))
/// let request = try await served.value()
/// ```
final class LoopbackResponder: Sendable {
    private let listener: RawListener
    private let response: String

    init(response: String) throws {
        self.response = response
        listener = try RawListener()
    }

    func url(path: String) -> URL {
        URL(string: "http://127.0.0.1:\(listener.port)\(path)")!
    }

    /// Serves one connection; its value is the raw request text, or nil when no complete
    /// request arrived.
    func serveOnce() -> Served<String?> {
        serve(reset: false)
    }

    /// Serves one connection like `serveOnce`, but after writing the response resets the
    /// connection (the kernel sends RST instead of FIN), as a crashing server or proxy would;
    /// give it a response cut short of its `Content-Length`.
    func serveOnceThenReset() -> Served<String?> {
        serve(reset: true)
    }

    private func serve(reset: Bool) -> Served<String?> {
        let response = self.response
        return Served(listener.serve { peer in
            if reset { peer.resetOnClose() }
            guard let request = try await peer.readRequest() else { return nil }
            try await peer.send(response)
            return String(decoding: request, as: UTF8.self)
        })
    }

    /// How a held connection ended.
    enum HoldOutcome: Equatable, Sendable, CustomStringConvertible {
        /// The client closed the connection: what a cancelled data task does.
        case clientHungUp
        /// The client reset the connection (the `errno` it ended with).
        case clientReset(Int32)
        /// A client connected but sent no complete request.
        case noRequest

        var description: String {
            switch self {
            case .clientHungUp: "LoopbackResponder: the client hung up"
            case .clientReset(let code): "LoopbackResponder: the connection ended with errno \(code)"
            case .noRequest: "LoopbackResponder: no complete request"
            }
        }
    }

    /// Accepts one connection, reads the request, opens `received`, then writes nothing and
    /// waits for the client to hang up. `received` is opened however serving ends, giving up
    /// included, so a test waiting for it always gets an answer; the outcome says which.
    func serveHolding(received: Gate) -> Served<HoldOutcome> {
        let served = listener.serve { peer -> HoldOutcome in
            defer { received.open() }
            guard try await peer.readRequest() != nil else { return .noRequest }
            received.open()
            let (_, error) = try await peer.readUntilClosed()
            return error.map(HoldOutcome.clientReset) ?? .clientHungUp
        }
        Task {
            // Serving that fails before the handler runs (no client within the bound).
            _ = await served.result
            received.open()
        }
        return Served(served)
    }
}

/// The outcome of serving one connection, awaited with a bound.
struct Served<Value: Sendable>: Sendable {
    let task: Task<[Value], any Error>

    init(_ task: Task<[Value], any Error>) {
        self.task = task
    }

    /// The connection's value, once it has been served.
    /// - Throws: ``WaitTimedOut`` ("Task 'LoopbackResponder: serving': not finished") when
    ///   the hang bound passes first; what serving threw.
    func value() async throws -> Value {
        let values = try await boundedValue(of: task, waitingFor: "LoopbackResponder: serving")
        guard let value = values.first else { throw CancellationError() }
        return value
    }
}
