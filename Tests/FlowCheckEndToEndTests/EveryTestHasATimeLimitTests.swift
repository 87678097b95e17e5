import Foundation
import FlowCheckTestLanes
import Testing

/// No test can hang the run: every `@Suite` in `Tests/` carries a `.timeLimit`, and every
/// `@Test` has one of its own or sits in a type whose `@Suite` has one (an extension counts
/// as its type). Swift Testing applies a suite's limit to each test in it, and a
/// parameterized test's limit to each case.
///
/// The check reads the sources, so it needs no test to run: it strips comments and string
/// literals, then follows attributes and braces. It recognises the limit only when written
/// as `.timeLimit(` inside the attribute's parentheses.
@Suite(.fast, .timeLimit(.minutes(20)))
struct EveryTestHasATimeLimitTests {
    /// The package root, three folders up from this file.
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Folders under `Tests/` that hold a helper executable for tests, or the driver processes
    /// of other languages (`Tests/Drivers`), not Swift tests.
    static let helperExecutables: Set<String> = ["StoreChurn", "BlockingDriver", "Drivers"]

    /// Every folder under `Tests/` but the helper executables: one per test target.
    static let testTargets: [String] = {
        let folder = packageRoot.appendingPathComponent("Tests").path
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        return names.filter { name in
            guard !helperExecutables.contains(name) else { return false }
            var isFolder: ObjCBool = false
            return FileManager.default.fileExists(atPath: folder + "/" + name, isDirectory: &isFolder) && isFolder.boolValue
        }.sorted()
    }()

    /// The `.swift` files of one target, as paths relative to the package root.
    static func swiftFiles(in target: String) -> [String] {
        let folder = "Tests/" + target
        let enumerator = FileManager.default.enumerator(atPath: packageRoot.appendingPathComponent(folder).path)
        var files: [String] = []
        while let name = enumerator?.nextObject() as? String {
            if name.hasSuffix(".swift") { files.append(folder + "/" + name) }
        }
        return files.sorted()
    }

    @Test(arguments: testTargets)
    func everySuiteAndTestHasATimeLimit(target: String) throws {
        let files = try Self.swiftFiles(in: target).map { path in
            (path: path, text: try String(contentsOf: Self.packageRoot.appendingPathComponent(path), encoding: .utf8))
        }
        let scan = TimeLimitScan(files: files)
        #expect(scan.testCount > 0, "found no @Test in Tests/\(target): the scan is not reading it")
        for problem in scan.problems {
            let path = Self.packageRoot.appendingPathComponent(problem.file).path
            let fileID = String(problem.file.dropFirst("Tests/".count))
            Issue.record(Comment(rawValue: problem.description), sourceLocation: SourceLocation(fileID: fileID, filePath: path, line: problem.line, column: 1))
        }
    }

    /// A time limit is a hang detector, never a speed test: every one is written as
    /// `.timeLimit(.minutes(N))` with N at least ``hangFloorMinutes``, which is more than 10x the
    /// slowest test measured with 16 busy loops on 2 cores (about 95 s). A slow machine must
    /// never fail a correct test; a hung one still fails by name, within the run.
    static let hangFloorMinutes = 20

    @Test(arguments: testTargets)
    func everyLimitIsAHangDetector(target: String) throws {
        for path in Self.swiftFiles(in: target) {
            let source = try String(contentsOf: Self.packageRoot.appendingPathComponent(path), encoding: .utf8)
            let code = String(decoding: SwiftCode.withoutCommentsAndStrings(Array(source.utf8)), as: UTF8.self)
            for (number, line) in code.split(separator: "\n", omittingEmptySubsequences: false).enumerated() where line.contains(".timeLimit(") {
                let minutes = line.firstMatch(of: /\.timeLimit\(\.minutes\((\d+)\)\)/).flatMap { Int($0.1) }
                if minutes.map({ $0 < Self.hangFloorMinutes }) ?? true {
                    Issue.record("\(path):\(number + 1): a time limit must be .timeLimit(.minutes(N)) with N >= \(Self.hangFloorMinutes), a hang detector far above the slowest run under load: \(line.trimmingCharacters(in: .whitespaces))")
                }
            }
        }
    }

    /// Every suite says which lane it runs in (`.fast` or `.integration`, from
    /// FlowCheckTestLanes), so `FLOWCHECK_LANE` can pick a lane and nothing runs in neither.
    @Test(arguments: testTargets)
    func everySuiteIsInALane(target: String) throws {
        var suites = 0
        for path in Self.swiftFiles(in: target) {
            let source = try String(contentsOf: Self.packageRoot.appendingPathComponent(path), encoding: .utf8)
            let code = String(decoding: SwiftCode.withoutCommentsAndStrings(Array(source.utf8)), as: UTF8.self)
            for (number, line) in code.split(separator: "\n", omittingEmptySubsequences: false).enumerated() where line.contains("@Suite") {
                suites += 1
                if line.firstMatch(of: /\.(fast|integration)\b/) == nil {
                    Issue.record("\(path):\(number + 1): a @Suite names no lane: add .fast (no socket, process or binary) or .integration")
                }
            }
        }
        #expect(suites > 0, "found no @Suite in Tests/\(target)")
    }

    /// A mistyped `FLOWCHECK_LANE` (say `Fast`) runs every lane and fails here, by name.
    @Test func theSelectedLaneIsKnown() {
        #expect(Lane.selected != nil, "FLOWCHECK_LANE=\(Lane.requested) names no lane: use fast, integration, or leave it unset for both")
    }

    /// Guards the test above against passing by finding nothing.
    @Test func theScanSeesEveryTargetIncludingThisOne() {
        #expect(Self.testTargets.contains("FlowCheckEndToEndTests"))
        #expect(Self.testTargets.count >= 6, "\(Self.testTargets)")
    }

    // MARK: - The scan itself, on sources written here

    private func problems(_ files: [String: String]) -> [String] {
        TimeLimitScan(files: files.sorted { $0.key < $1.key }.map { (path: $0.key, text: $0.value) }).problems.map(\.description)
    }

    @Test func flagsASuiteWithoutALimitAndEveryTestNotUnderOne() {
        let found = problems(["A.swift": """
        import Testing
        @Suite("named") struct Named {
            @Test func one() {}
        }
        struct Implicit {
            @Test(arguments: [1, 2]) func two(n: Int) {}
            @Test(.timeLimit(.minutes(20))) func ownLimit() {}
        }
        @Test func free() {}
        @Test(.timeLimit(.minutes(20))) func freeWithLimit() {}
        @Suite(.timeLimit(.minutes(20))) struct Limited {
            @Test func fine() {}
        }
        """])
        #expect(found == [
            "A.swift:2: @Suite without .timeLimit",
            "A.swift:3: @Test one is not under a time limit",
            "A.swift:6: @Test two is not under a time limit",
            "A.swift:9: @Test free is not under a time limit",
        ])
    }

    @Test func extensionsAndNestedTypesShareTheirSuitesLimit() {
        let found = problems([
            "A.swift": """
            @Suite(.serialized, .timeLimit(.minutes(20)))
            final class Outer {
                struct Inner {
                    @Test func nested() {}
                }
            }
            struct Plain {}
            """,
            "B.swift": """
            extension Outer {
                @Test func inExtension() {}
            }
            extension Outer.Inner {
                @Test func inNestedExtension() {}
            }
            extension Plain {
                @Test func notCovered() {}
            }
            """,
        ])
        #expect(found == ["B.swift:8: @Test notCovered is not under a time limit"])
    }

    @Test func attributesAndBracesInCommentsAndStringsAreNotCode() {
        let found = problems(["A.swift": #"""
        @Suite(.timeLimit(.minutes(20)))
        struct S {
            // @Test func commented() {}   }
            /* nested /* block */ } @Suite struct X { */
            let json = #"{"steps": [{"app": "auth"}]}"# + "\(["}": 1].count) }"
            let text = """
                @Test func inAString() { }
                """
            @Test func counted() {}
        }
        @Test func outside() {}
        """#])
        #expect(found == ["A.swift:11: @Test outside is not under a time limit"])
    }

    @Test func aLimitElsewhereInTheFileDoesNotCount() {
        let found = problems(["A.swift": """
        @Suite(.tags(.slow))
        struct S {
            let limit = TimeLimitTrait.timeLimit(.minutes(20))
            @Test func t() {}
        }
        """])
        #expect(found == ["A.swift:1: @Suite without .timeLimit", "A.swift:4: @Test t is not under a time limit"])
    }
}

/// What the sources of one test target say about time limits.
struct TimeLimitScan {
    struct Problem: CustomStringConvertible {
        var file: String
        var line: Int
        var message: String
        var description: String { "\(file):\(line): \(message)" }
    }

    private(set) var problems: [Problem] = []
    private(set) var testCount = 0

    /// A `@Test` and the type it is in, named from file scope ("Outer.Inner"), if any.
    private struct FoundTest {
        var file: String
        var line: Int
        var name: String
        var limited: Bool
        var type: String?
    }

    init(files: [(path: String, text: String)]) {
        // Declared types (named from file scope) whose own @Suite has a limit.
        var limitedTypes: Set<String> = []
        var tests: [FoundTest] = []
        for file in files {
            let scanned = Self.scan(file.path, Array(file.text.utf8))
            problems += scanned.problems
            tests += scanned.tests
            limitedTypes.formUnion(scanned.limitedTypes)
        }
        testCount = tests.count
        for test in tests where !test.limited {
            // Covered if its type, or any type that type is nested in, has a limited @Suite.
            var type = test.type.map { $0.split(separator: ".").map(String.init) } ?? []
            var covered = false
            while !type.isEmpty, !covered {
                covered = limitedTypes.contains(type.joined(separator: "."))
                type.removeLast()
            }
            if !covered {
                problems.append(Problem(file: test.file, line: test.line, message: "@Test \(test.name) is not under a time limit"))
            }
        }
        problems.sort { ($0.file, $0.line) < ($1.file, $1.line) }
    }

    private static let typeKeywords: Set<String> = ["struct", "class", "enum", "actor", "extension", "protocol"]
    /// Words that can follow `class` when it is a modifier, not a declaration.
    private static let notTypeNames: Set<String> = ["func", "var", "let", "static", "final", "override", "subscript", "private", "fileprivate", "internal", "public", "open", "init"]

    private static func scan(_ path: String, _ source: [UInt8]) -> (problems: [Problem], tests: [FoundTest], limitedTypes: Set<String>) {
        let code = SwiftCode.withoutCommentsAndStrings(source)
        let tokens = SwiftCode.tokens(code)
        var problems: [Problem] = []
        var tests: [FoundTest] = []
        var limitedTypes: Set<String> = []
        // One entry per open brace: the type or extension it is the body of, nil for others.
        var scopes: [String?] = []
        var pendingSuite: (line: Int, limited: Bool)?
        var pendingTest: (line: Int, limited: Bool)?
        var pendingType: String?
        var index = 0

        /// For an attribute at `index`: whether its argument list (if any) names a limit.
        func attributeLimit() -> Bool {
            guard index + 1 < tokens.count, tokens[index + 1].text == "(" else { return false }
            let start = tokens[index + 1].offset
            var depth = 0
            var end = start
            for (offset, byte) in code[start...].enumerated() {
                if byte == UInt8(ascii: "(") { depth += 1 }
                if byte == UInt8(ascii: ")") { depth -= 1 }
                if depth == 0 {
                    end = start + offset
                    break
                }
            }
            while index + 1 < tokens.count, tokens[index + 1].offset <= end { index += 1 }
            return String(decoding: code[start...end], as: UTF8.self).contains(".timeLimit(")
        }

        while index < tokens.count {
            let token = tokens[index]
            switch token.text {
            case "@Suite":
                let limited = attributeLimit()
                pendingSuite = (token.line, limited)
                if !limited { problems.append(Problem(file: path, line: token.line, message: "@Suite without .timeLimit")) }
            case "@Test":
                pendingTest = (token.line, attributeLimit())
            case let keyword where typeKeywords.contains(keyword):
                var name = index + 1 < tokens.count ? tokens[index + 1].text : ""
                guard !(keyword == "class" && notTypeNames.contains(name)) else { break }
                index += 1
                while index + 2 < tokens.count, tokens[index + 1].text == "." {
                    name += "." + tokens[index + 2].text
                    index += 2
                }
                if keyword != "extension", let outer = scopes.compactMap({ $0 }).last {
                    name = outer + "." + name
                }
                if keyword != "extension", pendingSuite?.limited == true {
                    limitedTypes.insert(name)
                }
                pendingType = name
                pendingSuite = nil
            case "func":
                if let test = pendingTest, index + 1 < tokens.count {
                    tests.append(FoundTest(file: path, line: test.line, name: tokens[index + 1].text, limited: test.limited, type: scopes.compactMap { $0 }.last))
                }
                pendingTest = nil
            case "{":
                scopes.append(pendingType)
                pendingType = nil
            case "}":
                _ = scopes.popLast()
                pendingSuite = nil
                pendingTest = nil
            default:
                break
            }
            index += 1
        }
        return (problems, tests, limitedTypes)
    }
}

/// Just enough of Swift's lexical structure to find attributes and braces in real code.
enum SwiftCode {
    struct Token {
        var text: String
        var line: Int
        var offset: Int
    }

    /// `source` with comments and string literals blanked to spaces, line breaks kept, so
    /// their braces and attributes are not taken for code. Interpolations stay code.
    static func withoutCommentsAndStrings(_ source: [UInt8]) -> [UInt8] {
        var lexer = Lexer(source: source, code: source)
        lexer.code(interpolation: false)
        return lexer.code
    }

    /// Identifiers (with a leading `@` for attributes) and the punctuation `{ } ( ) .`.
    static func tokens(_ code: [UInt8]) -> [Token] {
        var tokens: [Token] = []
        var line = 1
        var index = 0
        func isWord(_ byte: UInt8) -> Bool {
            byte == UInt8(ascii: "_") || (byte >= 0x30 && byte <= 0x39) || ((byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x7A) || byte >= 0x80
        }
        while index < code.count {
            let byte = code[index]
            if byte == UInt8(ascii: "\n") {
                line += 1
                index += 1
            } else if byte == UInt8(ascii: "@") || isWord(byte) {
                let start = index
                index += 1
                while index < code.count, isWord(code[index]) { index += 1 }
                tokens.append(Token(text: String(decoding: code[start..<index], as: UTF8.self), line: line, offset: start))
            } else {
                if "{}().".utf8.contains(byte) {
                    tokens.append(Token(text: String(UnicodeScalar(byte)), line: line, offset: index))
                }
                index += 1
            }
        }
        return tokens
    }

    private struct Lexer {
        let source: [UInt8]
        var code: [UInt8]
        var index = 0

        private func at(_ offset: Int) -> UInt8? {
            index + offset < source.count ? source[index + offset] : nil
        }

        private mutating func blank(_ count: Int = 1) {
            for _ in 0..<count where index < source.count {
                if source[index] != UInt8(ascii: "\n") { code[index] = UInt8(ascii: " ") }
                index += 1
            }
        }

        /// Code up to the end (or, in an interpolation, past its closing parenthesis).
        mutating func code(interpolation: Bool) {
            var depth = 0
            while index < source.count {
                let byte = source[index]
                if byte == UInt8(ascii: "/"), at(1) == UInt8(ascii: "/") {
                    while index < source.count, source[index] != UInt8(ascii: "\n") { blank() }
                } else if byte == UInt8(ascii: "/"), at(1) == UInt8(ascii: "*") {
                    blockComment()
                } else if byte == UInt8(ascii: "#") || byte == UInt8(ascii: "\"") {
                    var hashes = 0
                    while at(hashes) == UInt8(ascii: "#") { hashes += 1 }
                    if at(hashes) == UInt8(ascii: "\"") {
                        string(hashes: hashes)
                    } else {
                        index += max(hashes, 1)
                    }
                } else {
                    if interpolation, byte == UInt8(ascii: "(") { depth += 1 }
                    if interpolation, byte == UInt8(ascii: ")") {
                        if depth == 0 {
                            index += 1
                            return
                        }
                        depth -= 1
                    }
                    index += 1
                }
            }
        }

        /// A `/* */` comment, which Swift lets nest.
        private mutating func blockComment() {
            var depth = 0
            while index < source.count {
                if source[index] == UInt8(ascii: "/"), at(1) == UInt8(ascii: "*") {
                    depth += 1
                    blank(2)
                } else if source[index] == UInt8(ascii: "*"), at(1) == UInt8(ascii: "/") {
                    depth -= 1
                    blank(2)
                    if depth == 0 { return }
                } else {
                    blank()
                }
            }
        }

        /// A string literal starting at `index` with `hashes` leading `#`s.
        private mutating func string(hashes: Int) {
            let quote = UInt8(ascii: "\"")
            let multiline = at(hashes + 1) == quote && at(hashes + 2) == quote
            blank(hashes + (multiline ? 3 : 1))
            func closesHere(_ lexer: Lexer) -> Bool {
                let quotes = multiline ? 3 : 1
                return (0..<quotes).allSatisfy { lexer.at($0) == quote } && (0..<hashes).allSatisfy { lexer.at(quotes + $0) == UInt8(ascii: "#") }
            }
            while index < source.count {
                if source[index] == UInt8(ascii: "\\"), (0..<hashes).allSatisfy({ at(1 + $0) == UInt8(ascii: "#") }) {
                    if at(1 + hashes) == UInt8(ascii: "(") {
                        blank(2 + hashes)
                        code(interpolation: true)
                    } else {
                        blank(2 + hashes)
                    }
                } else if closesHere(self) {
                    blank((multiline ? 3 : 1) + hashes)
                    return
                } else if !multiline, source[index] == UInt8(ascii: "\n") {
                    return
                } else {
                    blank()
                }
            }
        }
    }
}
