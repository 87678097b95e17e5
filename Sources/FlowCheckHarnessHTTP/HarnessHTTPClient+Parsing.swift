import Foundation

/// Reads one HTTP/1.1 response from bytes as they arrive, in pieces of any size: the status
/// line, the header fields, then a body framed by `Transfer-Encoding: chunked`, by
/// `Content-Length`, or by the server closing the connection (RFC 9112 §6.3).
///
/// Interim 1xx answers are skipped. Answers to HEAD and 204 / 304 answers have no body.
struct HarnessHTTPResponseParser {
    private enum State: Equatable {
        case head
        case fixed(remaining: Int, total: Int)
        case chunkSize
        case chunkData(remaining: Int)
        case chunkDataEnd
        case trailers
        case untilClose
        case done
    }

    /// The request's method: the answer to a HEAD has no body whatever its headers say.
    let method: String
    /// The most bytes accepted, head and body together.
    let limit: Int
    /// The largest status line plus header section accepted.
    static let headLimit = 64 << 10

    private var buffer: [UInt8] = []
    private var position = 0
    private var received = 0
    private var state = State.head
    private var headLines: [String] = []
    private var response = HarnessHTTPResponse(status: 0, reason: "", headers: [], body: [])

    init(method: String, limit: Int = 16 << 20) {
        self.method = method.uppercased()
        self.limit = limit
    }

    /// What the parser needs next, for an error that names what was awaited.
    var awaiting: String {
        switch state {
        case .head: return received == 0 ? "the response's status line" : "the rest of the response's status line and headers"
        case .fixed(let remaining, let total): return "the response body (\(total - remaining) of \(total) bytes received)"
        case .chunkSize: return "the next chunk-size line of the chunked response body"
        case .chunkData(let remaining): return "the rest of a chunk of the response body (\(remaining) bytes to go)"
        case .chunkDataEnd: return "the line end after a chunk of the response body"
        case .trailers: return "the trailer section ending the chunked response body"
        case .untilClose: return "the end of the response body, which ends when the server closes the connection"
        case .done: return "nothing (the response is complete)"
        }
    }

    /// Takes the next bytes off the wire.
    /// - Returns: the response once it is complete; nil while more is needed.
    /// - Throws: ``HarnessHTTPError`` when the bytes are not a valid response or are too many.
    mutating func feed(_ bytes: some Collection<UInt8>) throws -> HarnessHTTPResponse? {
        received += bytes.count
        if received > limit { throw HarnessHTTPError.responseTooLarge(limit: limit) }
        buffer.append(contentsOf: bytes)
        try advance()
        // Drop what has been read, now and then, so the buffer holds only what is pending.
        if position > 4096, position * 2 > buffer.count {
            buffer.removeFirst(position)
            position = 0
        }
        return state == .done ? response : nil
    }

    /// The server closed the connection: the end of a body framed by the close, or too early.
    /// - Throws: ``HarnessHTTPError/closedEarly(awaiting:)`` when the response was not complete.
    mutating func finish() throws -> HarnessHTTPResponse {
        switch state {
        case .done:
            return response
        case .untilClose:
            state = .done
            return response
        default:
            throw HarnessHTTPError.closedEarly(awaiting: awaiting)
        }
    }

    private mutating func advance() throws {
        while true {
            switch state {
            case .head:
                guard let line = try nextLine(limit: Self.headLimit, what: "the status line and headers") else { return }
                if !line.isEmpty {
                    headLines.append(line)
                    continue
                }
                if headLines.isEmpty { continue }  // Blank lines before a status line are skipped (RFC 9112 §2.2).
                try finishHead()
            case .fixed(let remaining, let total):
                let take = min(remaining, buffer.count - position)
                guard take > 0 else { return }
                response.body.append(contentsOf: buffer[position..<(position + take)])
                position += take
                state = take == remaining ? .done : .fixed(remaining: remaining - take, total: total)
            case .chunkSize:
                guard let line = try nextLine(limit: 4096, what: "a chunk-size line") else { return }
                let size = line.prefix { $0 != ";" }.owsTrimmed
                guard !size.isEmpty, size.count <= 8, size.allSatisfy(\.isHexDigit), let value = Int(size, radix: 16) else {
                    throw HarnessHTTPError.malformedResponse("\"\(line)\" is not a chunk size")
                }
                if response.body.count + value > limit { throw HarnessHTTPError.responseTooLarge(limit: limit) }
                state = value == 0 ? .trailers : .chunkData(remaining: value)
            case .chunkData(let remaining):
                let take = min(remaining, buffer.count - position)
                guard take > 0 else { return }
                response.body.append(contentsOf: buffer[position..<(position + take)])
                position += take
                state = take == remaining ? .chunkDataEnd : .chunkData(remaining: remaining - take)
            case .chunkDataEnd:
                guard let line = try nextLine(limit: 2, what: "the line end after a chunk") else { return }
                guard line.isEmpty else { throw HarnessHTTPError.malformedResponse("a chunk is longer than its size line says") }
                state = .chunkSize
            case .trailers:
                guard let line = try nextLine(limit: Self.headLimit, what: "the trailer section") else { return }
                // Trailer fields are read past, not kept: nothing the harness checks lives there.
                if line.isEmpty { state = .done }
            case .untilClose:
                response.body.append(contentsOf: buffer[position...])
                position = buffer.count
                return
            case .done:
                return
            }
        }
    }

    /// The next line without its line end (CRLF, or a bare LF as RFC 9112 §2.2 allows a
    /// recipient to accept); nil while the line is incomplete.
    private mutating func nextLine(limit: Int, what: String) throws -> String? {
        guard let end = buffer[position...].firstIndex(of: UInt8(ascii: "\n")) else {
            if buffer.count - position > limit { throw HarnessHTTPError.malformedResponse("\(what) is longer than \(limit) bytes") }
            return nil
        }
        var line = buffer[position..<end]
        if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
        position = end + 1
        if line.contains(UInt8(ascii: "\r")) { throw HarnessHTTPError.malformedResponse("a bare CR inside \(what)") }
        // Field values are octets; Latin-1 keeps each one as it is, whatever the server sent.
        return String(line.map { Character(Unicode.Scalar($0)) })
    }

    private mutating func finishHead() throws {
        let statusLine = headLines[0]
        let parts = statusLine.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."), parts[0].count == 8, parts[0].last?.isNumber == true,
              parts[1].count == 3, parts[1].allSatisfy(\.isASCIIDigit), let status = Int(parts[1]) else {
            throw HarnessHTTPError.malformedResponse("\"\(statusLine)\" is not a status line")
        }
        var headers: [HarnessHTTPHeader] = []
        for line in headLines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { throw HarnessHTTPError.malformedResponse("\"\(line)\" is not a header field") }
            let name = String(line[..<colon])
            guard !name.isEmpty, name.allSatisfy(Self.isTokenCharacter) else {
                throw HarnessHTTPError.malformedResponse("\"\(name)\" is not a header field name")
            }
            headers.append(HarnessHTTPHeader(name: name, value: line[line.index(after: colon)...].owsTrimmed))
        }
        headLines = []
        // An interim answer (100 Continue, 103 Early Hints): the final one follows.
        if (100...199).contains(status), status != 101 { return }
        response = HarnessHTTPResponse(status: status, reason: parts.count == 3 ? String(parts[2]) : "", headers: headers, body: [])
        state = try Self.framing(status: status, method: method, headers: headers)
    }

    /// How the body is delimited (RFC 9112 §6.3).
    private static func framing(status: Int, method: String, headers: [HarnessHTTPHeader]) throws -> State {
        if method == "HEAD" || (100...199).contains(status) || status == 204 || status == 304 { return .done }
        let codings = values(of: "Transfer-Encoding", in: headers)
        if !codings.isEmpty {
            // Chunked last: framed by chunks; any other coding last: the body runs to the close.
            return codings.last?.lowercased() == "chunked" ? .chunkSize : .untilClose
        }
        let lengths = Set(values(of: "Content-Length", in: headers))
        guard let written = lengths.first else { return .untilClose }
        guard lengths.count == 1, !written.isEmpty, written.count <= 15, written.allSatisfy(\.isASCIIDigit), let length = Int(written) else {
            throw HarnessHTTPError.malformedResponse("Content-Length \(lengths.sorted()) is not one length")
        }
        return length == 0 ? .done : .fixed(remaining: length, total: length)
    }

    /// Every comma-separated element of the fields with `name`, in order.
    private static func values(of name: String, in headers: [HarnessHTTPHeader]) -> [String] {
        let wanted = name.lowercased()
        return headers.filter { $0.name.lowercased() == wanted }
            .flatMap { $0.value.split(separator: ",").map(\.owsTrimmed) }
    }

    /// `tchar` (RFC 9110 §5.6.2).
    static func isTokenCharacter(_ c: Character) -> Bool {
        guard let ascii = c.asciiValue else { return false }
        return (ascii >= 0x30 && ascii <= 0x39) || (ascii >= 0x41 && ascii <= 0x5A) || (ascii >= 0x61 && ascii <= 0x7A)
            || "!#$%&'*+-.^_`|~".utf8.contains(ascii)
    }
}

private extension Character {
    var isASCIIDigit: Bool { asciiValue.map { $0 >= 0x30 && $0 <= 0x39 } ?? false }
}

private extension StringProtocol {
    /// Without spaces and horizontal tabs at either end (RFC 9110 §5.6.3's OWS), byte by byte:
    /// Foundation's `trimmingCharacters(in:)` goes through NSString on Linux, for every header
    /// of every answer the harness reads.
    var owsTrimmed: String {
        let bytes = Array(utf8)
        func isOWS(_ byte: UInt8) -> Bool { byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        guard let first = bytes.firstIndex(where: { !isOWS($0) }), let last = bytes.lastIndex(where: { !isOWS($0) }) else { return "" }
        return String(decoding: bytes[first...last], as: UTF8.self)
    }
}
