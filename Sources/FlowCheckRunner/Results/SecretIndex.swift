/// Every secret form a ``Redactor`` masks, indexed by its first four UTF-8 bytes, so masking a
/// text costs one look-up per byte of the text whatever the number of secrets, and adding a
/// secret costs only its own forms.
///
/// Masking gives what replacing each form in turn, longest first, gave before the index: of
/// overlapping occurrences, the one of the longer form (then the one of the form that sorts
/// first, then the leftmost) is masked. Only where a form would have matched across a mask
/// already written (a secret containing `›` or the text `redacted`) can the two differ: the
/// index matches against the original text.
struct SecretIndex: Sendable {
    /// Forms shorter than this are not indexed (``Redactor/minimumLength`` characters is at
    /// least this many bytes).
    static let keyLength = 4

    private struct Form: Sendable {
        let text: String
        let bytes: [UInt8]
        let characters: Int

        /// Masked first: longer, then the one that sorts first.
        func outranks(_ other: Form) -> Bool {
            characters != other.characters ? characters > other.characters : text < other.text
        }
    }

    private var buckets: [UInt32: [Form]] = [:]
    /// The first two bytes of every form, as a bit set: most text positions are rejected here
    /// without hashing.
    private var pairs = [UInt64](repeating: 0, count: 1024)
    private var known: Set<String> = []

    var isEmpty: Bool { known.isEmpty }

    /// Adds a form; no effect if it is known or too short to index.
    mutating func insert(_ text: String) {
        let bytes = Array(text.utf8)
        guard bytes.count >= Self.keyLength, known.insert(text).inserted else { return }
        let form = Form(text: text, bytes: bytes, characters: text.count)
        buckets[Self.key(bytes, 0), default: []].append(form)
        let pair = Int(bytes[0]) << 8 | Int(bytes[1])
        pairs[pair >> 6] |= 1 << UInt64(pair & 63)
    }

    /// `text` with every indexed form replaced by `mask`: found as it is, and in the text as a
    /// reader would decode it (``NormalizedText``: every `%XX`, every `\uXXXX` and JSON escape
    /// undone), so a secret a client encoded in a way no form foresaw (an unreserved character
    /// percent-encoded, every byte percent-encoded, a JSON library's `\u003d`) is masked too,
    /// over the whole of its encoded span.
    /// `recognising` finds more spans to mask (secrets known by their shape), in both texts.
    func replacingForms(in text: String, with mask: String, recognising recognise: (([UInt8]) -> [Range<Int>])? = nil) -> String {
        guard !known.isEmpty || recognise != nil else { return text }
        let bytes = Array(text.utf8)
        guard bytes.count >= Self.keyLength else { return text }
        var masked = occurrences(in: bytes) + (recognise?(bytes) ?? [])
        if let decoded = NormalizedText(bytes) {
            masked += (occurrences(in: decoded.bytes) + (recognise?(decoded.bytes) ?? [])).map(decoded.originalRange)
        }
        guard !masked.isEmpty else { return text }
        // Overlapping spans are masked as one.
        masked.sort { $0.lowerBound < $1.lowerBound }
        var merged: [Range<Int>] = []
        for range in masked {
            if let last = merged.last, range.lowerBound < last.upperBound {
                merged[merged.count - 1] = last.lowerBound..<max(last.upperBound, range.upperBound)
            } else {
                merged.append(range)
            }
        }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var copied = 0
        for range in merged {
            out.append(contentsOf: bytes[copied..<range.lowerBound])
            out.append(contentsOf: mask.utf8)
            copied = range.upperBound
        }
        out.append(contentsOf: bytes[copied...])
        return String(decoding: out, as: UTF8.self)
    }

    /// The spans of `bytes` an indexed form occupies: of overlapping occurrences, the one of the
    /// longer form (then the one of the form that sorts first, then the leftmost).
    private func occurrences(in bytes: [UInt8]) -> [Range<Int>] {
        guard bytes.count >= Self.keyLength else { return [] }
        var found: [(start: Int, form: Form)] = []
        for start in 0...(bytes.count - Self.keyLength) {
            let pair = Int(bytes[start]) << 8 | Int(bytes[start + 1])
            guard pairs[pair >> 6] & (1 << UInt64(pair & 63)) != 0, let bucket = buckets[Self.key(bytes, start)] else { continue }
            for form in bucket where Self.matches(form.bytes, in: bytes, at: start) {
                found.append((start, form))
            }
        }
        guard !found.isEmpty else { return [] }
        // The order replacing form by form would have masked them in.
        found.sort { a, b in
            if a.form.text == b.form.text { return a.start < b.start }
            return a.form.outranks(b.form)
        }
        var masked: [Range<Int>] = []
        for (start, form) in found {
            let range = start..<(start + form.bytes.count)
            if !masked.contains(where: { $0.overlaps(range) }) { masked.append(range) }
        }
        return masked
    }

    private static func key(_ bytes: [UInt8], _ start: Int) -> UInt32 {
        UInt32(bytes[start]) << 24 | UInt32(bytes[start + 1]) << 16 | UInt32(bytes[start + 2]) << 8 | UInt32(bytes[start + 3])
    }

    private static func matches(_ pattern: [UInt8], in bytes: [UInt8], at start: Int) -> Bool {
        guard start + pattern.count <= bytes.count else { return false }
        var offset = Self.keyLength
        while offset < pattern.count {
            if bytes[start + offset] != pattern[offset] { return false }
            offset += 1
        }
        return true
    }
}
