/// HTTP's optional whitespace (RFC 9110 §5.6.3: `OWS = *( SP / HTAB )`) around a field value
/// or a list element.
extension StringProtocol {
    /// The text without spaces and horizontal tabs at either end, and nothing else trimmed:
    /// a no-break space is not HTTP whitespace. Byte by byte: Foundation's
    /// `trimmingCharacters(in:)` goes through NSString on Linux, on every request.
    package func trimmingOWS() -> String {
        let bytes = Array(utf8)
        func isOWS(_ byte: UInt8) -> Bool { byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        guard let first = bytes.firstIndex(where: { !isOWS($0) }), let last = bytes.lastIndex(where: { !isOWS($0) }) else { return "" }
        return String(decoding: bytes[first...last], as: UTF8.self)
    }
}
