/// `%XX` decoding shared by the form decoder and the file store's key mapping.
enum PercentDecoding {
    /// The UTF-8 text `bytes` encode, or nil on a broken escape or invalid UTF-8.
    /// - Parameter plusIsSpace: true for form bodies, where `+` stands for a space.
    static func decode<Bytes: Collection>(_ bytes: Bytes, plusIsSpace: Bool) -> String? where Bytes.Element == UInt8 {
        let bytes = Array(bytes)
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if plusIsSpace && byte == UInt8(ascii: "+") {
                output.append(UInt8(ascii: " "))
                index += 1
            } else if byte == UInt8(ascii: "%") {
                guard index + 2 < bytes.count,
                      let high = hexValue(bytes[index + 1]), let low = hexValue(bytes[index + 2])
                else { return nil }
                output.append(high << 4 | low)
                index += 3
            } else {
                output.append(byte)
                index += 1
            }
        }
        // `String(validating:)` would need macOS 15; a lossless round trip proves valid UTF-8.
        let text = String(decoding: output, as: UTF8.self)
        return text.utf8.elementsEqual(output) ? text : nil
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
