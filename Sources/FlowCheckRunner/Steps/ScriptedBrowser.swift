import Foundation
import FlowCheckFakeServer
import FlowCheckHarnessHTTP
import FlowCheckSpec

/// Plays the user in the browser over real HTTP against the fake: loads the page the SDK
/// opened, fills in the login form, and captures the redirect's `Location` without following
/// it (a custom scheme cannot be followed, and the app, not the browser, must receive it).
///
/// It speaks HTTP through the harness's own ``HarnessHTTPClient`` and form encoding, never the
/// SDK's transport: an SDK whose transport follows redirects must fail its own flow, not drag
/// the browser into following the login redirect as well.
final class ScriptedBrowser: Sendable {
    /// A page the browser loaded: what the judge's browser checks read.
    typealias Page = BrowserPage

    let window: BrowserWindow
    /// Never follows a redirect: the browser decides below which ones it follows itself.
    private let client = HarnessHTTPClient()

    /// What the browser holds between actions. The step loop acts on it one step at a time;
    /// the lock is for `close()`, which the flow's end may call while a step still runs.
    private struct State {
        var closed = false
        var seenOpened = 0
        var current: URL?
        var page: Page?
        var redirect: String?
        var seenDismissals = 0
    }

    private let state = Locked(State())

    init(window: BrowserWindow) {
        self.window = window
    }

    /// The last page the browser loaded.
    var page: Page? { state.withLock { $0.page } }

    /// The redirect the last action captured, as the app will receive it.
    var redirect: String? { state.withLock { $0.redirect } }

    /// URLs the SDK opened since the last call, and whether it dismissed the browser.
    func takeNews() -> (opened: [URL], dismissed: Bool) {
        let opened = window.opened
        let dismissals = window.dismissals
        return state.withLock { state in
            let fresh = Array(opened[min(state.seenOpened, opened.count)...])
            state.seenOpened = opened.count
            if let last = fresh.last { state.current = last }
            defer { state.seenDismissals = dismissals }
            return (fresh, dismissals > state.seenDismissals)
        }
    }

    /// A ``ParameterTransform`` with its suffix rendered: what `tamper` does to one parameter.
    struct Rewrite {
        var parameter: String
        var kind: TamperTransformKind
        /// The transform's value, rendered (the suffix, prefix, other value or injected text).
        var value: String
        var location: SourceLocation

        init(_ transform: ParameterTransform, variables: [String: String]) {
            parameter = transform.parameter
            kind = transform.transform.kind
            location = transform.location
            value = transform.transform.value?.render(variables) ?? ""
        }

        /// The decoded value rewritten, or nil when the transform would leave it as it was (a
        /// tamper that tests nothing is a mistake in the spec, never a silent pass).
        func apply(to value: String) -> String? {
            apply(toRaw: Substring(RawQuery.encode(value))).map { RawQuery.decode(Substring($0)) }
        }

        /// The value as written in the redirect (percent-encoded) rewritten, changing only the
        /// characters the transform changes: every other byte stays as the server wrote it. Nil
        /// when the transform would leave the value as it was.
        func apply(toRaw raw: Substring) -> String? {
            let units = RawQuery.units(raw)
            switch kind {
            case .flipCase:
                var changed = false
                let rewritten = units.map { unit -> String in
                    let character = Character(unit.scalar)
                    let swapped = character.isUppercase ? character.lowercased() : character.uppercased()
                    guard swapped != String(character) else { return String(unit.raw) }
                    changed = true
                    return RawQuery.encode(swapped)
                }.joined()
                return changed ? rewritten : nil
            case .dropLast:
                return units.isEmpty ? nil : units.dropLast().map { String($0.raw) }.joined()
            case .append:
                return value.isEmpty ? nil : String(raw) + RawQuery.encode(value)
            case .prepend:
                return value.isEmpty ? nil : RawQuery.encode(value) + String(raw)
            case .inject:
                return value.isEmpty ? nil : String(raw) + value
            case .empty:
                return raw.isEmpty ? nil : ""
            case .percentEncode, .doubleEncode:
                // RFC 3986 §2.3: ALPHA / DIGIT / "-" / "." / "_" / "~", written as itself.
                let unreserved = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~".unicodeScalars)
                guard let index = units.firstIndex(where: { $0.raw.count == 1 && unreserved.contains($0.scalar) }) else { return nil }
                let prefix = kind == .doubleEncode ? "%25" : "%"
                return units.enumerated().map { offset, unit in
                    offset == index ? prefix + String(format: "%02X", unit.scalar.value) : String(unit.raw)
                }.joined()
            case .repeatFirst, .repeatLast:
                // Not a rewrite of the value: `tamper` adds another piece instead.
                return nil
            }
        }
    }

    /// Performs a browser operation from a spec.
    /// - Throws: ``DriverError`` when there is nothing to act on (no page was opened), or a
    ///   transform names a parameter the captured redirect lacks or would change nothing.
    func perform(_ operation: BrowserOperation, _ arguments: [String: String], transforms: [Rewrite] = []) async throws {
        if let last = window.opened.last, window.opened.count > state.withLock({ $0.seenOpened }) { state.withLock { $0.current = last } }
        // No default: a new operation must be played here.
        switch operation {
        case .open:
            guard let url = URL(string: arguments["url"] ?? ""), url.scheme != nil else {
                throw DriverError("browser open: \"\(arguments["url"] ?? "")\" is not a URL", party: .spec)
            }
            state.withLock { state in
                state.current = url
                state.redirect = nil
            }
            try await load(url)
        case .login, .deny:
            guard let url = state.withLock({ $0.current }) else { throw DriverError("browser \(operation): the SDK opened no page for the user to \(operation == .login ? "log in on" : "deny")", party: .sdk) }
            state.withLock { $0.redirect = nil }
            try await load(url)
            guard let page, page.status == 200, let form = HTMLForm.first(in: page.body) else { return }
            var fields = form.hiddenFields
            if operation == .login {
                fields.append(("email", arguments["email"] ?? ""))
                fields.append(("password", arguments["password"] ?? ""))
            }
            if let button = form.buttons.first(where: { $0.value == operation.rawValue }) { fields.append((button.name, button.value)) }
            guard let target = URL(string: form.action, relativeTo: page.url)?.absoluteURL else {
                throw DriverError("browser \(operation): the form's action \(form.action) is not a URL", party: .harness)
            }
            let body = Array(HarnessFormEncoding.encode(fields).utf8)
            try await send(HarnessHTTPRequest(method: form.method, url: target, headers: [("Content-Type", "application/x-www-form-urlencoded")], body: body))
        case .tamper:
            let tampered = try Self.tamper(redirect, arguments, transforms: transforms)
            state.withLock { $0.redirect = tampered }
        }
    }

    /// The captured redirect as `tamper` rewrites it: the parameters named are set, removed or
    /// transformed, and every other byte stays as the server wrote it (an unrelated `%2B` is
    /// still `%2B`, a `+` still `+`), so the app reads every other parameter as it would have.
    /// - Throws: ``DriverError`` when there is no redirect, or a transform names a parameter the
    ///   redirect lacks or would change nothing.
    static func tamper(_ redirect: String?, _ arguments: [String: String], transforms: [Rewrite]) throws -> String {
        guard let redirect, URLComponents(string: redirect) != nil else {
            throw DriverError("browser tamper: there is no captured redirect to tamper with", party: .spec)
        }
        var query = RawQuery(redirect)
        query.remove(Set((arguments["remove"] ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }))
        for (name, value) in arguments.sorted(by: { $0.key < $1.key }) where !["remove", "order", "move"].contains(name) {
            if let part = RawQuery.URLPart(rawValue: name) {
                query.setPart(part, value)
            } else {
                query.set(name, to: value)
            }
        }
        if arguments["order"] == "reversed" { query.reverse() }
        if arguments["move"] == "queryToFragment" { query.moveQueryToFragment() }
        for rewrite in transforms {
            let place = "line \(rewrite.location.line), column \(rewrite.location.column)"
            if let part = RawQuery.URLPart(rawValue: rewrite.parameter) {
                // A part the URL lacks (no port, no fragment) is transformed from empty.
                let current = query.part(part) ?? ""
                guard let rewritten = rewrite.apply(toRaw: current) else {
                    throw DriverError("browser tamper (\(place)): \(rewrite.kind.rawValue) leaves the redirect's \(part.rawValue) as it was, so the step would test nothing. Fix: use another transform", party: .spec)
                }
                query.setPart(part, rewritten)
                continue
            }
            guard let piece = query.pieces.first(where: { $0.name == rewrite.parameter }) else {
                let present = query.names.map { "\"\($0)\"" }.joined(separator: ", ")
                throw DriverError("browser tamper (\(place)): the captured redirect has no \"\(rewrite.parameter)\" to \(rewrite.kind.rawValue); it carries \(present.isEmpty ? "no parameters" : present). Fix: set it with \"\(rewrite.parameter)\": \"...\", or transform one it carries", party: .spec)
            }
            if rewrite.kind == .repeatFirst || rewrite.kind == .repeatLast {
                _ = query.repeatParameter(rewrite.parameter, rawValue: RawQuery.encode(rewrite.value), before: rewrite.kind == .repeatFirst)
                continue
            }
            guard let rewritten = rewrite.apply(toRaw: piece.rawValue ?? "") else {
                throw DriverError("browser tamper (\(place)): \(rewrite.kind.rawValue) leaves \"\(rewrite.parameter)\" as it was (it has no letters, or is empty), so the step would test nothing. Fix: use another transform", party: .spec)
            }
            _ = query.rewrite(rewrite.parameter) { _ in rewritten }
        }
        return query.url
    }

    private func load(_ url: URL) async throws {
        try await send(HarnessHTTPRequest(method: "GET", url: url, headers: [("Accept", "text/html")]))
    }

    /// Redirects the browser follows by itself within the fake's own origin (a merchant
    /// backend's callback, say) before it stops at one for another origin or a custom scheme.
    static let maximumHops = 5

    private func send(_ request: HarnessHTTPRequest) async throws {
        var request = request
        for _ in 0...Self.maximumHops {
            guard !state.withLock({ $0.closed }) else { throw DriverError("the browser was closed", party: .harness) }
            let response: HarnessHTTPResponse
            do {
                response = try await client.send(request)
            } catch {
                throw DriverError("the browser could not load \(request.url.path): \(error)", party: .harness)
            }
            let page = Page(url: request.url, status: response.status, body: response.text)
            state.withLock { $0.page = page }
            guard (300...399).contains(response.status), let location = response[header: "Location"],
                  let target = URL(string: location, relativeTo: request.url)?.absoluteURL else { return }
            // Same scheme, host and port as the page: a hop inside the fake, followed like a
            // browser would. Anything else is where the app takes over: captured, not followed.
            // Schemes and hosts compare without case (RFC 3986 §3.1, §3.2.2).
            guard target.scheme?.lowercased() == request.url.scheme?.lowercased(), target.host?.lowercased() == request.url.host?.lowercased(),
                  target.port == request.url.port else {
                state.withLock { $0.redirect = target.absoluteString }
                return
            }
            request = HarnessHTTPRequest(method: "GET", url: target, headers: [("Accept", "text/html")])
        }
        throw DriverError("the browser gave up after \(Self.maximumHops) redirects within the fake", party: .harness)
    }

    /// Later loads fail; one under way ends within the client's deadline (or at once, when the
    /// flow's task is cancelled).
    func close() {
        state.withLock { $0.closed = true }
    }
}

/// Just enough HTML form parsing for a login page: the first form's action and method, its
/// hidden inputs and its submit buttons. Attribute values must be quoted, as the fakes write them.
struct HTMLForm {
    var action: String
    var method: String
    var hiddenFields: [(String, String)]
    var buttons: [(name: String, value: String)]

    static func first(in html: String) -> HTMLForm? {
        let bytes = ArraySlice(html.utf8)
        guard let formStart = find("<form", in: bytes, from: 0),
              let formEnd = find("</form>", in: bytes, from: formStart + 5) else { return nil }
        let tagEnd = bytes[(formStart + 5)...].firstIndex(of: UInt8(ascii: ">")) ?? formStart + 5
        guard tagEnd < formEnd else { return nil }
        let attributes = Self.attributes(of: bytes[formStart...tagEnd])
        let body = bytes[tagEnd..<formEnd]
        var form = HTMLForm(action: attributes["action"] ?? "", method: (attributes["method"] ?? "get").uppercased(), hiddenFields: [], buttons: [])
        for tag in Self.tags(named: "input", in: body) {
            let a = Self.attributes(of: tag)
            if a["type"]?.lowercased() == "hidden", let name = a["name"] { form.hiddenFields.append((name, a["value"] ?? "")) }
        }
        for tag in Self.tags(named: "button", in: body) {
            let a = Self.attributes(of: tag)
            if let name = a["name"], let value = a["value"] { form.buttons.append((name, value)) }
        }
        return form
    }

    // Scanned byte by byte (the fakes write the pages, quoted attributes only): Foundation's
    // case-insensitive `range(of:)` and NSRegularExpression were a sixtieth of the suite's CPU.

    /// Where `needle` (lower-case ASCII) starts in `bytes` at or after `start`, ignoring case.
    private static func find(_ needle: String, in bytes: ArraySlice<UInt8>, from start: Int) -> Int? {
        let pattern = Array(needle.utf8)
        guard bytes.count >= pattern.count else { return nil }
        var index = Swift.max(start, bytes.startIndex)
        while index + pattern.count <= bytes.endIndex {
            if zip(bytes[index..<(index + pattern.count)], pattern).allSatisfy({ lowered($0) == $1 }) { return index }
            index += 1
        }
        return nil
    }

    private static func lowered(_ byte: UInt8) -> UInt8 {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte + 32 : byte
    }

    /// Each `<name ...>` tag (the name ending at a non-word character), as `<name\b[^>]*>` with
    /// case ignored would find them.
    private static func tags(named name: String, in html: ArraySlice<UInt8>) -> [ArraySlice<UInt8>] {
        var tags: [ArraySlice<UInt8>] = []
        var index = html.startIndex
        while let open = find("<" + name, in: html, from: index) {
            let after = open + 1 + name.utf8.count
            guard after < html.endIndex else { break }
            if isWordByte(html[after]) {
                index = open + 1
                continue
            }
            guard let close = html[after...].firstIndex(of: UInt8(ascii: ">")) else { break }
            tags.append(html[open...close])
            index = close + 1
        }
        return tags
    }

    private static func isWordByte(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "_")
    }

    /// `name="value"` pairs (`[A-Za-z_:-]+\s*=\s*"[^"]*"`), names lower-cased, entities undone.
    private static func attributes(of tag: ArraySlice<UInt8>) -> [String: String] {
        func isNameByte(_ byte: UInt8) -> Bool {
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ":") || byte == UInt8(ascii: "-")
        }
        func isSpace(_ byte: UInt8) -> Bool {
            byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r") || byte == 0x0B || byte == 0x0C
        }
        var result: [String: String] = [:]
        var index = tag.startIndex
        while index < tag.endIndex {
            guard isNameByte(tag[index]) else {
                index += 1
                continue
            }
            let nameEnd = tag[index...].firstIndex { !isNameByte($0) } ?? tag.endIndex
            var cursor = nameEnd
            while cursor < tag.endIndex, isSpace(tag[cursor]) { cursor += 1 }
            if cursor < tag.endIndex, tag[cursor] == UInt8(ascii: "=") {
                cursor += 1
                while cursor < tag.endIndex, isSpace(tag[cursor]) { cursor += 1 }
                if cursor < tag.endIndex, tag[cursor] == UInt8(ascii: "\""),
                   let close = tag[(cursor + 1)...].firstIndex(of: UInt8(ascii: "\"")) {
                    let name = String(decoding: tag[index..<nameEnd], as: UTF8.self).lowercased()
                    result[name] = decodeEntities(String(decoding: tag[(cursor + 1)..<close], as: UTF8.self))
                    index = close + 1
                    continue
                }
            }
            // No value here: the pattern would try again one byte on, inside the same name.
            index += 1
        }
        return result
    }

    private static func decodeEntities(_ s: String) -> String {
        guard s.utf8.contains(UInt8(ascii: "&")) else { return s }
        return s.replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&#39;", with: "'")
            .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&amp;", with: "&")
    }
}
