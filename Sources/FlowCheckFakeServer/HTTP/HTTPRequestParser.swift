import Foundation

/// A pure, incremental HTTP/1.1 request parser: bytes in, verdict out, no I/O and no state.
///
/// Kept free of I/O so it can be unit tested and fuzzed; it must not trap on any input, so
/// every index is bounds-checked and every number is overflow-checked.
///
/// Decisions (all failures mean "answer and close"):
/// - Only CRLF line endings; a bare CR or LF inside the head is 400. Leading empty lines
///   before the request line are skipped (RFC 9112 §2.2) but count towards the head limit.
/// - A head (request line + fields + blank line) over `maxHeaderBytes` is 431, including an
///   over-long request line (no separate 414).
/// - Versions other than HTTP/1.0 and HTTP/1.1 that are well formed (`HTTP/d.d`) are 505.
/// - `Transfer-Encoding` of any kind is 501: this server only frames bodies by Content-Length.
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
        case .failure(let status, let reason):
            return .failure(status: status, reason: reason)
        case .head(let head):
            let available = buffer.count - head.headLength
            guard available >= head.contentLength else { return .needMoreData }
            let end = head.headLength + head.contentLength
            let request = HTTPRequest(
                method: head.method,
                target: head.target,
                version: head.version,
                headers: head.headers,
                body: Data(buffer[head.headLength..<end])
            )
            return .request(request, consumed: end)
        }
    }

    /// Parses the first request in `data`.
    public func parse(_ data: Data) -> HTTPParseResult {
        parse([UInt8](data))
    }

    // MARK: - Head

    /// A complete, validated request head whose body may not have arrived yet.
    struct Head: Equatable {
        var method: String
        var target: String
        var version: String
        var headers: HTTPHeaders
        /// Bytes from the buffer start through the blank line.
        var headLength: Int
        var contentLength: Int

        /// Whether the client waits for `100 Continue` before sending its body.
        var expectsContinue: Bool {
            version == "HTTP/1.1" && headers["Expect"]?.lowercased() == "100-continue"
        }
    }

    enum HeadResult: Equatable {
        case needMoreData
        case head(Head)
        case failure(status: Int, reason: String)
    }

    private static let cr: UInt8 = 0x0D
    private static let lf: UInt8 = 0x0A

    /// Parses and validates the head only; the server uses it to answer `Expect: 100-continue`.
    func parseHead(_ buffer: [UInt8]) -> HeadResult {
        var start = 0
        while start + 1 < buffer.count, buffer[start] == Self.cr, buffer[start + 1] == Self.lf {
            start += 2
        }
        guard let blank = Self.find([Self.cr, Self.lf, Self.cr, Self.lf], in: buffer, from: start) else {
            if buffer.count > limits.maxHeaderBytes {
                return .failure(status: 431, reason: "Request header section too large")
            }
            // Reject a bad request line early instead of waiting for a blank line that may never come.
            if let lineEnd = Self.find([Self.cr, Self.lf], in: buffer, from: start),
               case .failure(let status, let reason) = Self.parseRequestLine(buffer[start..<lineEnd]) {
                return .failure(status: status, reason: reason)
            }
            return .needMoreData
        }
        let headLength = blank + 4
        if headLength > limits.maxHeaderBytes {
            return .failure(status: 431, reason: "Request header section too large")
        }
        let lines = Self.splitLines(buffer[start..<(blank + 2)])
        guard let requestLine = lines.first else {
            return .failure(status: 400, reason: "Missing request line")
        }
        let method: String, target: String, version: String
        switch Self.parseRequestLine(requestLine) {
        case .failure(let status, let reason): return .failure(status: status, reason: reason)
        case .line(let m, let t, let v): (method, target, version) = (m, t, v)
        }
        var headers = HTTPHeaders()
        for line in lines.dropFirst() {
            switch Self.parseField(line) {
            case .failure(let reason): return .failure(status: 400, reason: reason)
            case .field(let name, let value): headers.add(name, value)
            }
        }
        if headers.contains("Transfer-Encoding") {
            return .failure(status: 501, reason: "Transfer-Encoding is not supported; send Content-Length")
        }
        let hosts = headers.values(for: "Host")
        if hosts.count > 1 || (version == "HTTP/1.1" && hosts.isEmpty) {
            return .failure(status: 400, reason: "HTTP/1.1 requires exactly one Host header")
        }
        let contentLength: Int
        switch Self.contentLength(headers.values(for: "Content-Length"), max: limits.maxBodyBytes) {
        case .failure(let status, let reason): return .failure(status: status, reason: reason)
        case .length(let length): contentLength = length
        }
        return .head(Head(
            method: method, target: target, version: version, headers: headers,
            headLength: headLength, contentLength: contentLength
        ))
    }

    // MARK: - Pieces

    private enum RequestLine {
        case line(method: String, target: String, version: String)
        case failure(status: Int, reason: String)
    }

    private static func parseRequestLine(_ line: ArraySlice<UInt8>) -> RequestLine {
        let parts = line.split(separator: 0x20, omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, !parts[1].isEmpty, !parts[2].isEmpty else {
            return .failure(status: 400, reason: "Malformed request line")
        }
        guard parts[0].allSatisfy(isTokenByte) else {
            return .failure(status: 400, reason: "Malformed method")
        }
        guard parts[1].allSatisfy({ $0 >= 0x21 && $0 <= 0x7E }) else {
            return .failure(status: 400, reason: "Malformed request target")
        }
        let target = String(decoding: parts[1], as: UTF8.self)
        let method = String(decoding: parts[0], as: UTF8.self)
        let isOriginForm = target.hasPrefix("/")
        let lowered = target.lowercased()
        let isAbsoluteForm = lowered.hasPrefix("http://") || lowered.hasPrefix("https://")
        let isAsteriskForm = target == "*" && method == "OPTIONS"
        guard isOriginForm || isAbsoluteForm || isAsteriskForm else {
            return .failure(status: 400, reason: "Malformed request target")
        }
        let versionBytes = Array(parts[2])
        let prefix = Array("HTTP/".utf8)
        guard versionBytes.count == 8, Array(versionBytes[0..<5]) == prefix,
              isDigit(versionBytes[5]), versionBytes[6] == UInt8(ascii: "."), isDigit(versionBytes[7])
        else {
            return .failure(status: 400, reason: "Malformed HTTP version")
        }
        let version = String(decoding: versionBytes, as: UTF8.self)
        guard version == "HTTP/1.1" || version == "HTTP/1.0" else {
            return .failure(status: 505, reason: "HTTP version not supported")
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
        case failure(status: Int, reason: String)
    }

    private static func contentLength(_ values: [String], max: Int) -> ContentLength {
        if values.isEmpty { return .length(0) }
        var normalized: String?
        for value in values {
            for item in value.split(separator: ",", omittingEmptySubsequences: false) {
                let digits = item.trimmingCharacters(in: CharacterSet(charactersIn: " \t"))
                guard !digits.isEmpty, digits.utf8.allSatisfy(isDigit) else {
                    return .failure(status: 400, reason: "Malformed Content-Length")
                }
                let stripped = String(digits.drop { $0 == "0" })
                let canonical = stripped.isEmpty ? "0" : stripped
                if let previous = normalized, previous != canonical {
                    return .failure(status: 400, reason: "Conflicting Content-Length values")
                }
                normalized = canonical
            }
        }
        guard let canonical = normalized else {
            return .failure(status: 400, reason: "Malformed Content-Length")
        }
        guard canonical.count <= 18, let length = Int(canonical), length <= max else {
            return .failure(status: 413, reason: "Request body too large")
        }
        return .length(length)
    }

    static func splitLines(_ bytes: ArraySlice<UInt8>) -> [ArraySlice<UInt8>] {
        // `bytes` ends with CRLF; every line is terminated by CRLF.
        var lines: [ArraySlice<UInt8>] = []
        var lineStart = bytes.startIndex
        var index = bytes.startIndex
        while index + 1 < bytes.endIndex {
            if bytes[index] == cr && bytes[index + 1] == lf {
                lines.append(bytes[lineStart..<index])
                index += 2
                lineStart = index
            } else {
                index += 1
            }
        }
        if lineStart < bytes.endIndex {
            lines.append(bytes[lineStart..<bytes.endIndex])
        }
        return lines
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
