import FlowCheckFakeServer
import Foundation

/// A URL's query as the bytes it was written with, edited one parameter at a time.
///
/// What a `tamper` step does to a captured redirect goes through here: the parameters it names
/// are set, removed or transformed, and every other byte of the URL stays as the server wrote
/// it. Decoding the whole query and encoding it again (as `URLComponents.queryItems` does)
/// would not: it writes a `%2B` back as a bare `+`, which a client reading the query with the
/// form rules (`+` is a space) rightly reads as another value, so a state that happens to hold
/// a `+` would turn a tampered code into a state mismatch, one run in several.
struct RawQuery {
    /// One `name=value` piece of the query, as written.
    struct Piece {
        /// The piece's bytes, percent-encoded as they came.
        var raw: Substring
        /// Its name, percent-decoded.
        var name: String
        /// Its value as written, or nil when the piece has no `=`.
        var rawValue: Substring? {
            raw.firstIndex(of: "=").map { raw[raw.index(after: $0)...] }
        }
    }

    /// Everything before the query (the `?` included when there was one).
    private var head: Substring
    /// The `#fragment`, if any, as written (with its `#`).
    private var fragment: Substring
    private(set) var pieces: [Piece]

    init(_ url: String) {
        let text = url[...]
        let fragmentStart = text.firstIndex(of: "#") ?? text.endIndex
        fragment = text[fragmentStart...]
        let beforeFragment = text[..<fragmentStart]
        guard let question = beforeFragment.firstIndex(of: "?") else {
            head = beforeFragment
            pieces = []
            return
        }
        head = beforeFragment[...question]
        let query = beforeFragment[beforeFragment.index(after: question)...]
        pieces = query.isEmpty ? [] : query.split(separator: "&", omittingEmptySubsequences: false).map { raw in
            let rawName = raw.firstIndex(of: "=").map { raw[..<$0] } ?? raw
            return Piece(raw: raw, name: Self.decode(rawName))
        }
    }

    /// The URL with the query as it now stands.
    var url: String {
        let live = pieces.filter { !$0.raw.isEmpty }
        guard !live.isEmpty else {
            // No parameter left: no `?` either, as the old rebuild wrote it.
            return String(head.hasSuffix("?") ? head.dropLast() : head) + fragment
        }
        return String(head.hasSuffix("?") ? head : head + "?") + live.map(\.raw).joined(separator: "&") + fragment
    }

    /// The decoded names of the parameters, in order.
    var names: [String] { pieces.filter { !$0.raw.isEmpty }.map(\.name) }

    /// Drops every parameter called one of `names`.
    mutating func remove(_ names: Set<String>) {
        pieces.removeAll { names.contains($0.name) }
    }

    /// Sets the first parameter called `name` to `value` (percent-encoded), or appends it.
    mutating func set(_ name: String, to value: String) {
        let raw = Substring(Self.encode(name) + "=" + Self.encode(value))
        if let index = pieces.firstIndex(where: { $0.name == name }) {
            pieces[index] = Piece(raw: raw, name: name)
        } else {
            pieces.append(Piece(raw: raw, name: name))
        }
    }

    /// Adds another `name=value` piece (the value as written, already encoded) just before or
    /// just after the first parameter called `name`. False when there is none.
    mutating func repeatParameter(_ name: String, rawValue: String, before: Bool) -> Bool {
        guard let index = pieces.firstIndex(where: { $0.name == name }) else { return false }
        let piece = pieces[index]
        let rawName = piece.raw.firstIndex(of: "=").map { piece.raw[..<$0] } ?? piece.raw
        pieces.insert(Piece(raw: Substring(rawName + "=" + rawValue), name: name), at: before ? index : index + 1)
        return true
    }

    /// The query, as written, becomes the fragment (`#code=...&state=...`); no query is left.
    mutating func moveQueryToFragment() {
        let live = pieces.filter { !$0.raw.isEmpty }.map(\.raw).joined(separator: "&")
        pieces = []
        fragment = Substring("#" + live)
    }

    /// The parameters last to first, each as written.
    mutating func reverse() {
        pieces.reverse()
    }

    /// A part of the URL before the query, or its fragment, as written (nil: the URL has none:
    /// no port, no userinfo, no fragment).
    func part(_ name: URLPart) -> Substring? {
        if name == .fragment { return fragment.isEmpty ? nil : fragment.dropFirst() }
        return URLHead(head).part(name)
    }

    /// Sets a part of the URL before the query, or its fragment, to `raw` (written as given):
    /// every other byte stays as it was.
    mutating func setPart(_ name: URLPart, _ raw: String) {
        if name == .fragment {
            fragment = Substring("#" + raw)
            return
        }
        var parsed = URLHead(head)
        parsed.set(name, raw)
        head = Substring(parsed.text)
    }

    /// The parts of a URL a `tamper` may rewrite besides its query.
    enum URLPart: String, CaseIterable {
        case scheme, userinfo, host, port, path, fragment
    }

    /// `scheme://userinfo@host:port/path?`, split as written.
    private struct URLHead {
        var scheme: Substring
        /// Whether `//` follows the scheme (an authority).
        var hasAuthority: Bool
        var userinfo: Substring?
        var host: Substring
        var port: Substring?
        var path: Substring
        var question: Bool

        init(_ head: Substring) {
            var rest = head
            question = rest.hasSuffix("?")
            if question { rest = rest.dropLast() }
            let colon = rest.firstIndex(of: ":") ?? rest.startIndex
            scheme = rest[..<colon]
            rest = colon < rest.endIndex ? rest[rest.index(after: colon)...] : rest[rest.endIndex...]
            hasAuthority = rest.hasPrefix("//")
            guard hasAuthority else {
                userinfo = nil
                host = ""
                port = nil
                path = rest
                return
            }
            rest = rest.dropFirst(2)
            let slash = rest.firstIndex(of: "/") ?? rest.endIndex
            var authority = rest[..<slash]
            path = rest[slash...]
            if let at = authority.lastIndex(of: "@") {
                userinfo = authority[..<at]
                authority = authority[authority.index(after: at)...]
            } else {
                userinfo = nil
            }
            // A port follows the last colon outside an IPv6 literal's brackets.
            if let colon = authority.lastIndex(of: ":"), !authority[colon...].contains("]") {
                host = authority[..<colon]
                port = authority[authority.index(after: colon)...]
            } else {
                host = authority
                port = nil
            }
        }

        func part(_ name: URLPart) -> Substring? {
            switch name {
            case .scheme: return scheme
            case .userinfo: return userinfo
            case .host: return host
            case .port: return port
            case .path: return path
            case .fragment: return nil
            }
        }

        mutating func set(_ name: URLPart, _ raw: String) {
            switch name {
            case .scheme: scheme = Substring(raw)
            case .userinfo: userinfo = Substring(raw); hasAuthority = true
            case .host: host = Substring(raw); hasAuthority = true
            case .port: port = Substring(raw); hasAuthority = true
            case .path: path = Substring(raw)
            case .fragment: break
            }
        }

        var text: String {
            var text = String(scheme) + ":"
            if hasAuthority {
                text += "//" + (userinfo.map { $0 + "@" } ?? "") + host + (port.map { ":" + $0 } ?? "")
            }
            return text + path + (question ? "?" : "")
        }
    }

    /// Replaces the value of the first parameter called `name` with `rewrite(its value as
    /// written)`. False when there is no such parameter; nil from `rewrite` leaves it as it was.
    mutating func rewrite(_ name: String, _ rewrite: (Substring) -> String?) -> Bool {
        guard let index = pieces.firstIndex(where: { $0.name == name }) else { return false }
        let piece = pieces[index]
        let rawName = piece.raw.firstIndex(of: "=").map { piece.raw[..<$0] } ?? piece.raw
        if let value = rewrite(piece.rawValue ?? "") {
            pieces[index] = Piece(raw: Substring(rawName + "=" + value), name: name)
        }
        return true
    }

    // MARK: - Encoding

    /// Every byte but RFC 3986's unreserved characters as `%XX` (the fakes' own encoder).
    static func encode(_ text: String) -> String {
        HarnessPercentEncoding.encodeComponent(text)
    }

    /// One Unicode scalar of a raw value and the bytes that wrote it (`a`, `%2B`, `%C3%A9`).
    struct Unit {
        var raw: Substring
        var scalar: Unicode.Scalar
    }

    /// The raw value cut into the scalars it writes, each with its own bytes; a `%` that starts
    /// no escape, or escapes that are not UTF-8, stand for themselves.
    static func units(_ raw: Substring) -> [Unit] {
        let scalars = raw.unicodeScalars
        var units: [Unit] = []
        var index = scalars.startIndex
        while index < scalars.endIndex {
            if let first = escapedByte(scalars, at: index) {
                let needed = first < 0x80 ? 1 : first >= 0xC2 && first < 0xE0 ? 2 : first >= 0xE0 && first < 0xF0 ? 3 : first >= 0xF0 && first < 0xF5 ? 4 : 0
                var bytes = [first]
                var cursor = scalars.index(index, offsetBy: 3)
                while needed > 0, bytes.count < needed, let next = escapedByte(scalars, at: cursor), next & 0xC0 == 0x80 {
                    bytes.append(next)
                    cursor = scalars.index(cursor, offsetBy: 3)
                }
                if needed > 0, bytes.count == needed, let scalar = scalar(bytes) {
                    units.append(Unit(raw: Substring(scalars[index..<cursor]), scalar: scalar))
                    index = cursor
                    continue
                }
            }
            // Not an escape (or a broken one): the scalar stands for itself.
            let next = scalars.index(after: index)
            units.append(Unit(raw: Substring(scalars[index..<next]), scalar: scalars[index]))
            index = next
        }
        return units
    }

    private static func escapedByte(_ scalars: Substring.UnicodeScalarView, at index: Substring.UnicodeScalarView.Index) -> UInt8? {
        guard index < scalars.endIndex, scalars[index] == "%" else { return nil }
        let digits = scalars[scalars.index(after: index)...].prefix(2)
        guard digits.count == 2, digits.allSatisfy({ $0.properties.isASCIIHexDigit }) else { return nil }
        return UInt8(String(String.UnicodeScalarView(digits)), radix: 16)
    }

    private static func scalar(_ bytes: [UInt8]) -> Unicode.Scalar? {
        var decoder = UTF8()
        var iterator = bytes.makeIterator()
        guard case .scalarValue(let scalar) = decoder.decode(&iterator), iterator.next() == nil else { return nil }
        return scalar
    }

    /// A raw value percent-decoded (`+` stays `+`: which reading a client applies is its own).
    static func decode(_ raw: Substring) -> String {
        String(String.UnicodeScalarView(units(raw).map(\.scalar)))
    }
}
