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
        let start = skipEmptyLines(buffer)
        let lines: [ArraySlice<UInt8>]
        var complete = false
        switch scanHead(buffer, from: start) {
        case .incomplete(let firstLine):
            lines = firstLine.map { [$0] } ?? []
        case .complete(let headLines, _):
            lines = headLines
            complete = true
        }
        guard let requestLine = lines.first else { return request }
        let parts = requestLine.split(separator: 0x20, omittingEmptySubsequences: false)
        if parts.count == 3 {
            let printable = { (part: ArraySlice<UInt8>) in !part.isEmpty && part.allSatisfy { $0 >= 0x21 && $0 <= 0x7E } }
            if !parts[0].isEmpty, parts[0].allSatisfy(isTokenByte) {
                request.method = String(decoding: parts[0], as: UTF8.self)
            }
            if printable(parts[1]) { request.target = String(decoding: parts[1], as: UTF8.self) }
            if printable(parts[2]) { request.version = String(decoding: parts[2], as: UTF8.self) }
        }
        if complete {
            for line in lines.dropFirst() {
                if case .field(let name, let value) = parseField(line) {
                    request.headers.add(name, value)
                }
            }
        }
        return request
    }
}
