import Foundation
import FlowCheckTestLanes
import Testing
@testable import FlowCheckSpec
import FlowCheckTestSupport

/// FlowCheck's regex engine gives NSRegularExpression's verdict (`firstMatch` found or not) on
/// every pattern the project uses and on seeded random small patterns, over many inputs.
@Suite(.fast, .timeLimit(.minutes(20)))
struct LinearRegexDifferentialTests {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Every `"regex"` value in the committed specs, read with the spec JSON reader.
    static let specPatterns: [String] = {
        var found = Set<String>()
        let specs = packageRoot.appendingPathComponent("specs")
        let names = FileManager.default.enumerator(atPath: specs.path)?.compactMap { $0 as? String } ?? []
        for name in names where name.hasSuffix(".json") && !name.hasSuffix(".schema.json") {
            guard let data = FileManager.default.contents(atPath: specs.appendingPathComponent(name).path), let root = try? JSONReader.parse(Array(data)) else { continue }
            collect(root, into: &found)
        }
        return found.sorted()
    }()

    static func collect(_ node: JSONNode, into found: inout Set<String>) {
        switch node.value {
        case .object(let members):
            for member in members {
                if member.key == "regex", case .string(let pattern) = member.value.value { found.insert(pattern) }
                collect(member.value, into: &found)
            }
        case .array(let items): for item in items { collect(item, into: &found) }
        case .null, .bool, .number, .string: break
        }
    }

    /// The patterns in Tests/ and Sources/ (table tests, `--filter` tests, the loader's own
    /// fixed patterns), found with `grep -rn regex`, plus shapes a careful user writes.
    static let projectPatterns = [
        "^/v1/", "^T", "^[0-9]+$", "^[A-Za-z0-9_-]{43,128}$", "TWO$",
        "\\A[A-Z][A-Z0-9]*(-[A-Z0-9]+)+\\z", "\\A[0-9]{3}_[0-9a-f]{16}\\.txt\\z", "\\A[A-Z]+\\z",
        "\\A[A-Za-z_][A-Za-z0-9_]*\\z", "\\A([0-9]+h)?([0-9]+m)?([0-9]+s)?\\z",
        "\\A(SEED-[0-9]{3}-[a-z0-9]+(-[a-z0-9]+)*|RFC[0-9]{4}-[0-9]+(\\.[0-9]+)*)\\z",
        "\\A[A-Za-z][A-Za-z0-9_-]*\\z", "\\A[A-Za-z][A-Za-z0-9+.-]*:\\S+\\z",
        "^Bearer [A-Za-z0-9._~+/-]+=*$", "\\bcode=[^&]+", "^https?://[^/]+/cb\\?", "(?i)^bearer\\s", "\\d{3}-\\d{2,4}",
        "[^\\w\\s]", "a|b|", "(?:ab)*?c", "x\\Z", "\\Bb", "é", "(?i)[a-f0-9]{8}", "\\u0041\\x42\\x{43}", "[\\t\\n\\r ]+$", "^$", "\\.", "[.]",
    ]

    static let edgeInputs = [
        "", "a", "A", "\n", "\r\n", "a\n", "a\r\n", "a\n\n", " ", "Bearer ", "Bearer abc", "Bearer a,b", "bearer X", "application/json",
        "application/json; charset=utf-8", "text/application/json", "application/x-www-form-urlencoded", "application/x-www-form-urlencoded;charset=UTF-8",
        "refresh_token", "client_credentials", "refresh_tokens", "Rate limit exceeded", "TOO MANY REQUESTS", "rate-limit", "ratelimit",
        "/v1/products", "v1/", "42", "4a", "TWO", "ONE-TWO", "MLT-AUTH", "SEED-003-refresh", "RFC7636-4.6", "1h30m", "61m", "061_0123456789abcdef.txt",
        "https://x/cb?code=1", "x\r", "x\u{2028}", "é", "É", "e\u{301}", "\u{212A}", "ſ", "ABC", "abcdefab", "123-4567", "0000-00", "café!", "_x_",
    ]

    /// `count` inputs from the pattern's own characters and a few others, lengths 0 to 140.
    static func randomInputs(for pattern: String, count: Int, seed: UInt64) -> [String] {
        var random = SplitMix64(seed: seed)
        let own = Array(pattern.unicodeScalars.filter { !"^$\\()[]{}|?*+".unicodeScalars.contains($0) })
        let extra = Array("aZ09_-./ \n\r=,;é".unicodeScalars)
        let tokenish = Array("ABCxyz0189_-".unicodeScalars)
        return (0..<count).map { _ in
            let length = Int.random(in: 0...(Bool.random(using: &random) ? 12 : 140), using: &random)
            var text = String.UnicodeScalarView()
            for _ in 0..<length {
                let pool = [own.isEmpty ? extra : own, extra, tokenish][Int.random(in: 0...2, using: &random)]
                text.append(pool[Int.random(in: 0..<pool.count, using: &random)])
            }
            return String(text)
        }
    }

    static func icuFinds(_ regex: NSRegularExpression, _ text: String) -> Bool {
        regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil
    }

    static func ours(_ regex: LinearRegex, _ text: String) -> Bool? {
        switch regex.search(text) {
        case .found: return true
        case .notFound: return false
        case .gaveUp: return nil
        }
    }

    @Test func theCommittedSpecsHaveRegexes() {
        // Guards the sweep below against passing by reading nothing.
        #expect(Self.specPatterns.count >= 8, "\(Self.specPatterns)")
        #expect(Self.specPatterns.contains("(?i)rate.limit|too many requests"))
    }

    @Test(arguments: specPatterns + projectPatterns)
    func everyProjectPatternGivesNSRegularExpressionsVerdict(_ pattern: String) throws {
        let icu = try NSRegularExpression(pattern: pattern)
        let regex = try LinearRegex(pattern)
        var seed: UInt64 = 0x5EED
        for scalar in pattern.unicodeScalars { seed = seed &* 31 &+ UInt64(scalar.value) }
        for input in Self.edgeInputs + Self.randomInputs(for: pattern, count: 300, seed: seed) {
            #expect(Self.ours(regex, input) == Self.icuFinds(icu, input), "/\(pattern)/ on \(input.debugDescription)")
        }
    }

    /// Random small patterns from the supported subset: ours compiles exactly what ICU does
    /// among them, and agrees on every input.
    @Test func randomSmallPatternsGiveNSRegularExpressionsVerdict() {
        var random = SplitMix64(seed: 0xF10C)
        var compared = 0
        for _ in 0..<600 {
            let pattern = RandomPattern.make(using: &random)
            let icu = try? NSRegularExpression(pattern: pattern)
            let regex = try? LinearRegex(pattern)
            #expect((icu == nil) == (regex == nil), "/\(pattern)/: ICU \(icu == nil ? "refuses" : "compiles"), FlowCheck \(regex == nil ? "refuses" : "compiles")")
            guard let icu, let regex else { continue }
            for _ in 0..<40 {
                let input = RandomPattern.input(using: &random)
                #expect(Self.ours(regex, input) == Self.icuFinds(icu, input), "/\(pattern)/ on \(input.debugDescription)")
                compared += 1
            }
        }
        #expect(compared > 10_000, "only \(compared) comparisons: the generator makes too few valid patterns")
    }
}

/// A seeded generator of small patterns over `a`, `b`, `A` and punctuation, using only the
/// constructs FlowCheck supports (so both engines must compile them).
enum RandomPattern {
    static let atoms = ["a", "b", "A", ".", "\\.", "-", "[ab]", "[^a]", "[a-c]", "[A-Z]", "[-a]", "\\d", "\\w", "\\s", "\\W", "\\S", "\\D", "[\\d\\s]", "\\n", "0", " ", "é"]
    static let anchors = ["^", "$", "\\b", "\\B", "\\A", "\\z", "\\Z"]
    static let quantifiers = ["*", "+", "?", "{2}", "{1,2}", "{0,}", "{2,3}", "*?", "+?", "??", "{1,3}?"]

    static func make(using random: inout SplitMix64) -> String {
        (Int.random(in: 0..<6, using: &random) == 0 ? "(?i)" : "") + alternation(depth: 0, using: &random)
    }

    static func alternation(depth: Int, using random: inout SplitMix64) -> String {
        let count = Int.random(in: 0..<5, using: &random) == 0 ? 2 : 1
        return (0..<count).map { _ in sequence(depth: depth, using: &random) }.joined(separator: "|")
    }

    static func sequence(depth: Int, using random: inout SplitMix64) -> String {
        var text = ""
        for _ in 0..<Int.random(in: 1...4, using: &random) {
            let roll = Int.random(in: 0..<10, using: &random)
            if roll == 0 {
                text += anchors.randomElement(using: &random)!
                continue
            }
            var atom = atoms.randomElement(using: &random)!
            if roll == 1 && depth < 2 {
                atom = (Bool.random(using: &random) ? "(" : "(?:") + alternation(depth: depth + 1, using: &random) + ")"
            }
            if Int.random(in: 0..<3, using: &random) == 0 { atom += quantifiers.randomElement(using: &random)! }
            text += atom
        }
        return text
    }

    static func input(using random: inout SplitMix64) -> String {
        let pool = Array("aabbAB.-0 \né_".unicodeScalars)
        var text = String.UnicodeScalarView()
        for _ in 0..<Int.random(in: 0...10, using: &random) { text.append(pool.randomElement(using: &random)!) }
        return String(text)
    }
}
