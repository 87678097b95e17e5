/// Ordered header fields as they appeared on the wire, looked up case-insensitively.
///
/// Order and repeats are kept because conformance reports show exactly what a client sent.
public struct HTTPHeaders: Sendable, Equatable, Sequence, ExpressibleByDictionaryLiteral, ExpressibleByArrayLiteral {
    private var storage: [(name: String, value: String)]

    public init(_ pairs: [(String, String)] = []) {
        storage = pairs.map { (name: $0.0, value: $0.1) }
    }

    /// `["Content-Type": "text/plain"]`; repeated names are kept, in order.
    public init(dictionaryLiteral elements: (String, String)...) {
        self.init(elements)
    }

    /// `[("Set-Cookie", "a=1"), ("Set-Cookie", "b=2")]`.
    public init(arrayLiteral elements: (String, String)...) {
        self.init(elements)
    }

    /// The fields in wire order, names with their original spelling.
    public var pairs: [(name: String, value: String)] { storage }

    /// Number of fields, counting repeats.
    public var count: Int { storage.count }

    /// The first value for `name` (case-insensitive), or nil.
    public subscript(name: String) -> String? {
        storage.first { Self.sameName($0.name, name) }?.value
    }

    /// Every value for `name` in order (case-insensitive).
    public func values(for name: String) -> [String] {
        storage.filter { Self.sameName($0.name, name) }.map(\.value)
    }

    /// Whether two field names are the same, case aside (`lowercased()` equality): ASCII names,
    /// every name a parser lets through, are compared byte by byte without building lowercased
    /// copies (a lookup lowercased every stored name, a tenth of serve's time for a request).
    static func sameName(_ lhs: String, _ rhs: String) -> Bool {
        let left = lhs.utf8, right = rhs.utf8
        guard left.allSatisfy({ $0 < 0x80 }), right.allSatisfy({ $0 < 0x80 }) else {
            // Unicode lowercasing can map a non-ASCII letter to an ASCII one (K, the Kelvin sign).
            return lhs.lowercased() == rhs.lowercased()
        }
        guard left.count == right.count else { return false }
        return zip(left, right).allSatisfy { a, b in
            a == b || (a | 0x20) == (b | 0x20) && (0x61...0x7A).contains(a | 0x20)
        }
    }

    /// Whether at least one field called `name` exists (case-insensitive).
    public func contains(_ name: String) -> Bool {
        self[name] != nil
    }

    /// Appends a field, keeping any existing ones of that name.
    public mutating func add(_ name: String, _ value: String) {
        storage.append((name: name, value: value))
    }

    /// Replaces every field called `name` with one field, at the position of the first.
    public mutating func set(_ name: String, _ value: String) {
        if let first = storage.firstIndex(where: { Self.sameName($0.name, name) }) {
            storage[first] = (name: name, value: value)
            var index = storage.index(after: first)
            while index < storage.endIndex {
                if Self.sameName(storage[index].name, name) {
                    storage.remove(at: index)
                } else {
                    index = storage.index(after: index)
                }
            }
        } else {
            storage.append((name: name, value: value))
        }
    }

    /// Removes every field called `name` (case-insensitive).
    public mutating func remove(_ name: String) {
        storage.removeAll { Self.sameName($0.name, name) }
    }

    public func makeIterator() -> IndexingIterator<[(name: String, value: String)]> {
        storage.makeIterator()
    }

    /// Exact comparison: same names (same spelling), same values, same order.
    public static func == (lhs: HTTPHeaders, rhs: HTTPHeaders) -> Bool {
        lhs.storage.count == rhs.storage.count
            && zip(lhs.storage, rhs.storage).allSatisfy { $0.name == $1.name && $0.value == $1.value }
    }
}

extension HTTPHeaders {
    /// The media type of a Content-Type value, lowercased and without parameters.
    static func mediaType(_ contentType: String?) -> String? {
        guard let contentType else { return nil }
        return contentType.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false)[0]
            .trimmingOWS().lowercased()
    }
}
