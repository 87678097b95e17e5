import Foundation

/// `Transfer-Encoding: chunked` request bodies (RFC 9112 §7.1).
extension HTTPRequestParser {
    /// Longest chunk-size line (size and extensions) accepted, so a client cannot make the
    /// server buffer an endless extension.
    static let maxChunkLineBytes = 4096

    enum ChunkedBody: Equatable {
        case needMoreData
        /// The decoded body and the index just past the chunked body's final empty line.
        case body([UInt8], end: Int)
        case failure(Refusal)
    }

    /// Decodes the chunked body that starts at `start`.
    ///
    /// Decisions: the decoded body has the same `maxBodyBytes` limit as a `Content-Length`
    /// one (413); the framing around it is bounded too (`2 × maxBodyBytes + maxHeaderBytes`
    /// wire bytes, 413), so a flood of one-byte chunks cannot buffer without end. Chunk
    /// extensions are ignored (RFC 9112 §7.1.1), and so are trailer fields (§7.1.2: a
    /// recipient may discard them); the trailer section counts against `maxHeaderBytes`
    /// (431). Lines end in CRLF or a bare LF, as in the head. A size that is not hex digits,
    /// text after it that is not an extension, or chunk data not followed by a line end is 400.
    func decodeChunked(_ buffer: [UInt8], from start: Int) -> ChunkedBody {
        let maxWire = limits.maxBodyBytes * 2 + limits.maxHeaderBytes
        var body: [UInt8] = []
        var index = start
        while true {
            guard index - start <= maxWire else {
                return .failure(Refusal(status: 413, reason: "Chunked framing too large", rule: .httpBodyTooLarge))
            }
            guard let (lineEnd, next) = Self.lineEnd(buffer, from: index) else {
                if buffer.count - index > Self.maxChunkLineBytes { return Self.malformedChunk("Chunk size line too long") }
                if buffer.count - start > maxWire {
                    return .failure(Refusal(status: 413, reason: "Chunked framing too large", rule: .httpBodyTooLarge))
                }
                return .needMoreData
            }
            guard lineEnd - index <= Self.maxChunkLineBytes else { return Self.malformedChunk("Chunk size line too long") }
            var size = 0
            var cursor = index
            while cursor < lineEnd, let digit = Self.hexValue(buffer[cursor]) {
                let (shifted, overflow) = size.multipliedReportingOverflow(by: 16)
                size = shifted + Int(digit)
                guard !overflow, body.count + size <= limits.maxBodyBytes else {
                    return .failure(Refusal(status: 413, reason: "Request body too large", rule: .httpBodyTooLarge))
                }
                cursor += 1
            }
            guard cursor > index else { return Self.malformedChunk("Chunk size is not hexadecimal") }
            while cursor < lineEnd, buffer[cursor] == 0x20 || buffer[cursor] == 0x09 { cursor += 1 }
            guard cursor == lineEnd || buffer[cursor] == UInt8(ascii: ";") else {
                return Self.malformedChunk("Malformed chunk size line")
            }
            index = next
            if size == 0 { return trailers(buffer, from: index, body: body) }
            guard buffer.count >= index + size else { return .needMoreData }
            let dataEnd = index + size
            if buffer.count == dataEnd || (buffer[dataEnd] == Self.cr && buffer.count == dataEnd + 1) { return .needMoreData }
            let after: Int
            if buffer[dataEnd] == Self.lf {
                after = dataEnd + 1
            } else if buffer[dataEnd] == Self.cr, buffer[dataEnd + 1] == Self.lf {
                after = dataEnd + 2
            } else {
                return Self.malformedChunk("Chunk data not followed by a line end")
            }
            body.append(contentsOf: buffer[index..<dataEnd])
            index = after
        }
    }

    /// Skips the trailer section after the last chunk, up to and including its empty line.
    private func trailers(_ buffer: [UInt8], from start: Int, body: [UInt8]) -> ChunkedBody {
        var index = start
        while true {
            guard let (lineEnd, next) = Self.lineEnd(buffer, from: index) else {
                if buffer.count - start > limits.maxHeaderBytes {
                    return .failure(Refusal(status: 431, reason: "Trailer section too large", rule: .httpHeadTooLarge))
                }
                return .needMoreData
            }
            if next - start > limits.maxHeaderBytes {
                return .failure(Refusal(status: 431, reason: "Trailer section too large", rule: .httpHeadTooLarge))
            }
            if lineEnd == index { return .body(body, end: next) }
            index = next
        }
    }

    /// The end of the line starting at `start` (before its CR, if any) and the index after
    /// its LF, or nil when no LF has arrived yet.
    static func lineEnd(_ buffer: [UInt8], from start: Int) -> (end: Int, next: Int)? {
        guard start < buffer.count, let lf = buffer[start...].firstIndex(of: lf) else { return nil }
        let end = lf > start && buffer[lf - 1] == cr ? lf - 1 : lf
        return (end, lf + 1)
    }

    private static func malformedChunk(_ reason: String) -> ChunkedBody {
        .failure(Refusal(status: 400, reason: reason, rule: .httpMalformedChunk))
    }

    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
