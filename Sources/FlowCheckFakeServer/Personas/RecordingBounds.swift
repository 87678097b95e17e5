import Foundation

/// How much of its traffic a ``FakeProviderServer`` keeps. A flow keeps everything (its
/// report shows every exchange); a server that runs for days (`flowcheck serve`) keeps the
/// latest exchanges, bodies cut, so its memory stays flat whatever the traffic.
public struct RecordingBounds: Sendable, Equatable {
    /// Most exchanges kept, the latest; nil keeps all. Indexes keep counting from the first.
    public var keepLast: Int?
    /// Longest request or response body kept in the record, in bytes; nil keeps them whole.
    /// The client still receives the whole response.
    public var maxBodyBytes: Int?

    public init(keepLast: Int? = nil, maxBodyBytes: Int? = nil) {
        self.keepLast = keepLast.map { max($0, 0) }
        self.maxBodyBytes = maxBodyBytes.map { max($0, 0) }
    }

    /// Everything, for the length of a flow.
    public static let unbounded = RecordingBounds()

    /// `body` cut to `maxBodyBytes`, copied so the record does not keep the whole buffer alive.
    func cut(_ body: Data) -> Data {
        guard let limit = maxBodyBytes, body.count > limit else { return body }
        return Data(Array(body.prefix(limit)))
    }

    /// `exchange` with both bodies cut.
    func cut(_ exchange: RecordedExchange) -> RecordedExchange {
        guard maxBodyBytes != nil else { return exchange }
        var request = exchange.request
        request.body = cut(request.body)
        var response = exchange.response
        response.body = cut(response.body)
        return RecordedExchange(index: exchange.index, time: exchange.time, request: request, response: response, fault: exchange.fault, origin: exchange.origin)
    }
}
