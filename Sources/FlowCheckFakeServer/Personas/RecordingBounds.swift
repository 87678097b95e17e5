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
    ///
    /// A cut inside a word backs off to the word's start: the record is masked after it is
    /// cut, and the first half of a token or secret cut in two is no longer a form any
    /// redactor knows, so it would be shown. A word here is a run of what tokens, secrets and
    /// their encodings are written in: letters, digits, `-._~%+/=` and `\` (a `\u` escape).
    func cut(_ body: Data) -> Data {
        guard let limit = maxBodyBytes, body.count > limit else { return body }
        // Indexed in place: only what is kept is copied, not a body of megabytes.
        let start = body.startIndex
        var end = start + limit
        if Self.inWord(body[end]) {
            while end > start, Self.inWord(body[end - 1]) { end -= 1 }
        }
        return Data(body[start..<end])
    }

    private static func inWord(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"):
            return true
        default:
            return "-._~%+/=\\".utf8.contains(byte)
        }
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
