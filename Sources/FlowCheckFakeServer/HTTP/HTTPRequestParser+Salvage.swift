import Foundation

extension HTTPRequestParser {
    /// What can be told of a request the parser refused, so it can still be recorded.
    ///
    /// Method, target and version come from a complete request line of three parts, each
    /// "?" when absent or malformed (so a 505 keeps its method and path). Header fields come
    /// from a complete head, skipping lines that do not parse. The body is never kept: a
    /// refused request's body was not read as one.
    static func salvage(_ buffer: [UInt8]) -> HTTPRequest {
        var request = HTTPRequest(method: "?", target: "?", version: "?")
        let crlf: [UInt8] = [0x0D, 0x0A]
        var start = 0
        while start + 1 < buffer.count, buffer[start] == crlf[0], buffer[start + 1] == crlf[1] {
            start += 2
        }
        guard let lineEnd = find(crlf, in: buffer, from: start) else { return request }
        let parts = buffer[start..<lineEnd].split(separator: 0x20, omittingEmptySubsequences: false)
        if parts.count == 3 {
            let printable = { (part: ArraySlice<UInt8>) in !part.isEmpty && part.allSatisfy { $0 >= 0x21 && $0 <= 0x7E } }
            if !parts[0].isEmpty, parts[0].allSatisfy(isTokenByte) {
                request.method = String(decoding: parts[0], as: UTF8.self)
            }
            if printable(parts[1]) { request.target = String(decoding: parts[1], as: UTF8.self) }
            if printable(parts[2]) { request.version = String(decoding: parts[2], as: UTF8.self) }
        }
        if let blank = find(crlf + crlf, in: buffer, from: start) {
            for line in splitLines(buffer[start..<(blank + 2)]).dropFirst() {
                if case .field(let name, let value) = parseField(line) {
                    request.headers.add(name, value)
                }
            }
        }
        return request
    }
}
