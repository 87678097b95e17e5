import Foundation

/// A pure, incremental HTTP/1.1 request parser: bytes in, verdict out, no I/O and no state.
///
/// Kept free of I/O so it can be unit tested and fuzzed; it must not trap on any input, so
/// every index is bounds-checked and every number is overflow-checked.
///
/// Decisions (all failures mean "answer and close", each with a ``FlowCheckRule``):
/// - Lines end in CRLF or, as RFC 9112 §2.2 allows a recipient to recognize, a bare LF (the
///   CR before it is dropped); a CR anywhere else in the head is 400. Leading empty lines
///   before the request line are skipped (RFC 9112 §2.2) but count towards the head limit.
/// - A head (request line + fields + blank line) over `maxHeaderBytes` is 414 when the
///   request line alone could not fit in any head of that size (it and two line ends exceed
///   the limit: the target is what is too long, RFC 9110 §15.5.15), else 431.
/// - Versions other than HTTP/1.0 and HTTP/1.1 that are well formed (`HTTP/d.d`) are 505.
/// - `Transfer-Encoding: chunked` bodies are decoded (RFC 9112 §7.1, see
///   ``decodeChunked(_:from:)``); another coding before chunked is 501, a list not ending in
///   chunked is 400, and chunked together with `Content-Length` is 400 (RFC 9112 §6.1 lets a
///   server refuse what request smuggling is made of).
/// - No `Content-Length` means an empty body, never 411 (RFC 9112 §6.3: such a request has no body).
/// - `Content-Length` must be digits; repeated or comma-listed values must agree (else 400);
///   a value above `maxBodyBytes`, however many digits, is 413.
/// - HTTP/1.1 requires exactly one `Host` field (RFC 9112 §3.2), else 400; HTTP/1.0 allows none.
/// - Field values are decoded as UTF-8, invalid sequences replaced by U+FFFD.
public struct HTTPRequestParser: Sendable {
    public var limits: HTTPServerLimits

    public init(limits: HTTPServerLimits = .init()) {
        self.limits = limits
    }

    /// Parses the first request in `buffer`.
    public func parse(_ buffer: [UInt8]) -> HTTPParseResult {
        switch parseHead(buffer) {
        case .needMoreData:
            return .needMoreData
        case .failure(let refusal):
            return refusal.result
        case .head(let head):
            let body: Data
            let end: Int
            switch head.framing {
            case .length(let length):
                guard buffer.count - head.headLength >= length else { return .needMoreData }
                end = head.headLength + length
                body = Data(buffer[head.headLength..<end])
            case .chunked:
                switch decodeChunked(buffer, from: head.headLength) {
                case .needMoreData: return .needMoreData
                case .failure(let refusal): return refusal.result
                case .body(let bytes, let bodyEnd): (body, end) = (Data(bytes), bodyEnd)
                }
            }
            let request = HTTPRequest(
                method: head.method, target: head.target, version: head.version, headers: head.headers, body: body
            )
            return .request(request, consumed: end)
        }
    }

    /// Parses the first request in `data`.
    public func parse(_ data: Data) -> HTTPParseResult {
        parse([UInt8](data))
    }

    // MARK: - Head

    /// How the body is delimited.
    enum Framing: Equatable {
        case length(Int)
        case chunked
    }

    /// A complete, validated request head whose body may not have arrived yet.
    struct Head: Equatable {
        var method: String
        var target: String
        var version: String
        var headers: HTTPHeaders
        /// Bytes from the buffer start through the blank line.
        var headLength: Int
        var framing: Framing

        /// Whether the client waits for `100 Continue` before sending its body.
        var expectsContinue: Bool {
            version == "HTTP/1.1" && headers["Expect"]?.lowercased() == "100-continue"
        }
    }

    /// A refusal: the status, a short reason for the body, and the rule.
    struct Refusal: Equatable {
        var status: Int
        var reason: String
        var rule: FlowCheckRule

        var result: HTTPParseResult { .failure(status: status, reason: reason, rule: rule) }
    }

    enum HeadResult: Equatable {
        case needMoreData
        case head(Head)
        case failure(Refusal)
    }

    static let cr: UInt8 = 0x0D
    static let lf: UInt8 = 0x0A

    /// Parses and validates the head only; the server uses it to answer `Expect: 100-continue`.
    func parseHead(_ buffer: [UInt8]) -> HeadResult {
        let start = Self.skipEmptyLines(buffer)
        let lines: [ArraySlice<UInt8>]
        let headLength: Int
        switch Self.scanHead(buffer, from: start) {
        case .incomplete(let firstLine):
            if buffer.count > limits.maxHeaderBytes {
                return .failure(tooLarge(requestLineLength: firstLine?.count ?? buffer.count - start))
            }
            // Reject a bad request line early instead of waiting for a blank line that may never come.
            if let firstLine, case .failure(let refusal) = Self.parseRequestLine(firstLine) {
                return .failure(refusal)
            }
            return .needMoreData
        case .complete(let headLines, let length):
            (lines, headLength) = (headLines, length)
        }
        if headLength > limits.maxHeaderBytes {
            return .failure(tooLarge(requestLineLength: lines.first?.count ?? 0))
        }
        guard let requestLine = lines.first else {
            return .failure(Refusal(status: 400, reason: "Missing request line", rule: .httpMalformedRequestLine))
        }
        let method: String, target: String, version: String
        switch Self.parseRequestLine(requestLine) {
        case .failure(let refusal): return .failure(refusal)
        case .line(let m, let t, let v): (method, target, version) = (m, t, v)
        }
        var headers = HTTPHeaders()
        for line in lines.dropFirst() {
            switch Self.parseField(line) {
            case .failure(let reason): return .failure(Refusal(status: 400, reason: reason, rule: .httpMalformedField))
            case .field(let name, let value): headers.add(name, value)
            }
        }
        let hosts = headers.values(for: "Host")
        if hosts.count > 1 || (version == "HTTP/1.1" && hosts.isEmpty) {
            return .failure(Refusal(status: 400, reason: "HTTP/1.1 requires exactly one Host header", rule: .httpHostRequired))
        }
        let framing: Framing
        switch Self.framing(headers, maxBodyBytes: limits.maxBodyBytes) {
        case .failure(let refusal): return .failure(refusal)
        case .framing(let found): framing = found
        }
        return .head(Head(
            method: method, target: target, version: version, headers: headers,
            headLength: headLength, framing: framing
        ))
    }

    /// 414 when the request line alone could not fit in a head of the limit, else 431.
    private func tooLarge(requestLineLength: Int) -> Refusal {
        if requestLineLength + 4 > limits.maxHeaderBytes {
            return Refusal(status: 414, reason: "Request target too long", rule: .httpTargetTooLong)
        }
        return Refusal(status: 431, reason: "Request header section too large", rule: .httpHeadTooLarge)
    }

    private enum FramingResult {
        case framing(Framing)
        case failure(Refusal)
    }

    /// The body framing the fields ask for (RFC 9112 §6.3).
    private static func framing(_ headers: HTTPHeaders, maxBodyBytes: Int) -> FramingResult {
        let codings = headers.values(for: "Transfer-Encoding").flatMap { $0.split(separator: ",", omittingEmptySubsequences: false) }
            .map { $0.trimmingOWS().lowercased() }
        guard codings.isEmpty else {
            guard codings.last == "chunked" else {
                return .failure(Refusal(status: 400, reason: "Transfer-Encoding must end in chunked", rule: .httpChunkedNotFinal))
            }
            guard codings.count == 1 else {
                return .failure(Refusal(status: 501, reason: "Only the chunked transfer coding is supported", rule: .httpTransferCodingNotSupported))
            }
            guard !headers.contains("Content-Length") else {
                return .failure(Refusal(status: 400, reason: "Content-Length and Transfer-Encoding together", rule: .httpLengthAndChunked))
            }
            return .framing(.chunked)
        }
        switch contentLength(headers.values(for: "Content-Length"), max: maxBodyBytes) {
        case .failure(let refusal): return .failure(refusal)
        case .length(let length): return .framing(.length(length))
        }
    }

    // MARK: - Pieces

    private enum RequestLine {
        case line(method: String, target: String, version: String)
        case failure(Refusal)
    }

    private static func malformed(_ reason: String) -> RequestLine {
        .failure(Refusal(status: 400, reason: reason, rule: .httpMalformedRequestLine))
    }

    private static func parseRequestLine(_ line: ArraySlice<UInt8>) -> RequestLine {
        let parts = line.split(separator: 0x20, omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, !parts[1].isEmpty, !parts[2].isEmpty else {
            return malformed("Malformed request line")
        }
        guard parts[0].allSatisfy(isTokenByte) else {
            return malformed("Malformed method")
        }
        guard parts[1].allSatisfy({ $0 >= 0x21 && $0 <= 0x7E }) else {
            return malformed("Malformed request target")
        }
        let target = String(decoding: parts[1], as: UTF8.self)
        let method = String(decoding: parts[0], as: UTF8.self)
        let isOriginForm = target.hasPrefix("/")
        let lowered = target.lowercased()
        let isAbsoluteForm = lowered.hasPrefix("http://") || lowered.hasPrefix("https://")
        let isAsteriskForm = target == "*" && method == "OPTIONS"
        guard isOriginForm || isAbsoluteForm || isAsteriskForm else {
            return malformed("Malformed request target")
        }
        let versionBytes = Array(parts[2])
        let prefix = Array("HTTP/".utf8)
        guard versionBytes.count == 8, Array(versionBytes[0..<5]) == prefix,
              isDigit(versionBytes[5]), versionBytes[6] == UInt8(ascii: "."), isDigit(versionBytes[7])
        else {
            return malformed("Malformed HTTP version")
        }
        let version = String(decoding: versionBytes, as: UTF8.self)
        guard version == "HTTP/1.1" || version == "HTTP/1.0" else {
            return .failure(Refusal(status: 505, reason: "HTTP version not supported", rule: .httpVersionNotSupported))
        }
        return .line(method: method, target: target, version: version)
    }

    enum Field {
        case field(name: String, value: String)
        case failure(String)
    }

    static func parseField(_ line: ArraySlice<UInt8>) -> Field {
        guard let first = line.first else { return .failure("Empty header line") }
        if first == 0x20 || first == 0x09 {
            return .failure("Obsolete line folding is not allowed")
        }
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else {
            return .failure("Header line without colon")
        }
        let name = line[line.startIndex..<colon]
        guard !name.isEmpty, name.allSatisfy(isTokenByte) else {
            return .failure("Malformed header name")
        }
        var value = line[line.index(after: colon)...]
        while let byte = value.first, byte == 0x20 || byte == 0x09 { value = value.dropFirst() }
        while let byte = value.last, byte == 0x20 || byte == 0x09 { value = value.dropLast() }
        guard value.allSatisfy({ $0 == 0x09 || ($0 >= 0x20 && $0 != 0x7F) }) else {
            return .failure("Control character in header value")
        }
        return .field(name: String(decoding: name, as: UTF8.self), value: String(decoding: value, as: UTF8.self))
    }

    private enum ContentLength {
        case length(Int)
        case failure(Refusal)
    }

    private static func contentLength(_ values: [String], max: Int) -> ContentLength {
        if values.isEmpty { return .length(0) }
        var normalized: String?
        for value in values {
            for item in value.split(separator: ",", omittingEmptySubsequences: false) {
                let digits = item.trimmingOWS()
                guard !digits.isEmpty, digits.utf8.allSatisfy(isDigit) else {
                    return .failure(Refusal(status: 400, reason: "Malformed Content-Length", rule: .httpMalformedContentLength))
                }
                let stripped = String(digits.drop { $0 == "0" })
                let canonical = stripped.isEmpty ? "0" : stripped
                if let previous = normalized, previous != canonical {
                    return .failure(Refusal(status: 400, reason: "Conflicting Content-Length values", rule: .httpMalformedContentLength))
                }
                normalized = canonical
            }
        }
        guard let canonical = normalized else {
            return .failure(Refusal(status: 400, reason: "Malformed Content-Length", rule: .httpMalformedContentLength))
        }
        guard canonical.count <= 18, let length = Int(canonical), length <= max else {
            return .failure(Refusal(status: 413, reason: "Request body too large", rule: .httpBodyTooLarge))
        }
        return .length(length)
    }

    /// The index after any empty lines (CRLF or bare LF) at the start of `buffer`.
    static func skipEmptyLines(_ buffer: [UInt8]) -> Int {
        var index = 0
        while true {
            if index < buffer.count, buffer[index] == lf {
                index += 1
            } else if index + 1 < buffer.count, buffer[index] == cr, buffer[index + 1] == lf {
                index += 2
            } else {
                return index
            }
        }
    }

    enum HeadScan {
        /// No empty line yet; the first line, if it is complete.
        case incomplete(firstLine: ArraySlice<UInt8>?)
        /// The head's lines without terminators, and the bytes through the empty line.
        case complete(lines: [ArraySlice<UInt8>], length: Int)
    }

    /// The head's lines from `start`, each ended by LF with an optional CR before it
    /// (RFC 9112 §2.2), up to the first empty line.
    static func scanHead(_ buffer: [UInt8], from start: Int) -> HeadScan {
        var lines: [ArraySlice<UInt8>] = []
        var lineStart = start
        while lineStart < buffer.count, let end = buffer[lineStart...].firstIndex(of: lf) {
            var contentEnd = end
            if contentEnd > lineStart, buffer[contentEnd - 1] == cr { contentEnd -= 1 }
            if contentEnd == lineStart { return .complete(lines: lines, length: end + 1) }
            lines.append(buffer[lineStart..<contentEnd])
            lineStart = end + 1
        }
        return .incomplete(firstLine: lines.first)
    }

    static func find(_ needle: [UInt8], in buffer: [UInt8], from start: Int) -> Int? {
        guard needle.count > 0, buffer.count >= needle.count, start <= buffer.count - needle.count else { return nil }
        var index = start
        let last = buffer.count - needle.count
        while index <= last {
            if buffer[index] == needle[0] {
                var matched = true
                for offset in 1..<needle.count where buffer[index + offset] != needle[offset] {
                    matched = false
                    break
                }
                if matched { return index }
            }
            index += 1
        }
        return nil
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    /// RFC 9110 tchar.
    static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }
}
