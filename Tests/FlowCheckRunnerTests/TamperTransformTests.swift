import Foundation
import FlowCheckTestLanes
import Testing
@testable import FlowCheckRunner
import FlowCheckSpec

/// The scripted browser's tamper transforms: what each does to a value, that one which would
/// change nothing is refused, and how a step reads in the report.
@Suite(.fast, .timeLimit(.minutes(20)))
struct TamperTransformTests {
    static let here = SourceLocation(line: 4, column: 9)

    static func rewrite(_ transform: TamperTransform, variables: [String: String] = [:]) -> ScriptedBrowser.Rewrite {
        ScriptedBrowser.Rewrite(ParameterTransform(parameter: "state", transform: transform, location: here), variables: variables)
    }

    @Test("every transform, on a mixed value", arguments: TamperTransformKind.allCases)
    func eachTransform(_ kind: TamperTransformKind) {
        let value = "aB3-x_Z"
        // No default: a new transform needs its expected result here.
        switch kind {
        case .flipCase: #expect(Self.rewrite(.flipCase).apply(to: value) == "Ab3-X_z")
        case .dropLast: #expect(Self.rewrite(.dropLast).apply(to: value) == "aB3-x_")
        case .append: #expect(Self.rewrite(.append(Template("${suffix}!")), variables: ["suffix": "0"]).apply(to: value) == "aB3-x_Z0!")
        case .empty: #expect(Self.rewrite(.empty).apply(to: value) == "")
        case .prepend: #expect(Self.rewrite(.prepend(Template("evil"))).apply(to: value) == "evilaB3-x_Z")
        case .inject:
            // Written as given, not encoded: the client reads a `&` inside the value.
            #expect(Self.rewrite(.inject(Template("%26x"))).apply(toRaw: Substring(value)) == "aB3-x_Z%26x")
        case .percentEncode:
            // The same value by RFC 3986 §2.3, written otherwise.
            #expect(Self.rewrite(.percentEncode).apply(toRaw: Substring(value)) == "%61B3-x_Z")
            #expect(Self.rewrite(.percentEncode).apply(to: value) == value)
        case .doubleEncode:
            // Decoded once: `%61`, another value; decoded twice: the original.
            #expect(Self.rewrite(.doubleEncode).apply(toRaw: Substring(value)) == "%2561B3-x_Z")
            #expect(Self.rewrite(.doubleEncode).apply(to: value) == "%61B3-x_Z")
        case .repeatFirst, .repeatLast:
            // Another piece, not a rewrite of the value (see `repeatedParameters`).
            #expect(Self.rewrite(kind == .repeatFirst ? .repeatFirst(Template("x")) : .repeatLast(Template("x"))).apply(to: value) == nil)
        }
    }

    @Test("a repeated parameter is another piece beside the captured one, first or last")
    func repeatedParameters() throws {
        let url = "https://pos.example.com/cb?code=C&state=S"
        let first = try ScriptedBrowser.tamper(url, [:], transforms: [ScriptedBrowser.Rewrite(ParameterTransform(parameter: "state", transform: .repeatFirst(Template("forged")), location: Self.here), variables: [:])])
        #expect(first == "https://pos.example.com/cb?code=C&state=forged&state=S")
        let last = try ScriptedBrowser.tamper(url, [:], transforms: [ScriptedBrowser.Rewrite(ParameterTransform(parameter: "state", transform: .repeatLast(Template("forged")), location: Self.here), variables: [:])])
        #expect(last == "https://pos.example.com/cb?code=C&state=S&state=forged")
    }

    @Test("the URL's parts: near misses of scheme, host and path, a userinfo, a port, a fragment, the order", arguments: [
        ("host suffix", ["host"], TamperTransform.append(Template(".evil.example")), [String: String](), "https://pos.example.com.evil.example/cb?code=C&state=S"),
        ("host prefix", ["host"], .prepend(Template("evil")), [:], "https://evilpos.example.com/cb?code=C&state=S"),
        ("host case", ["host"], .flipCase, [:], "https://POS.EXAMPLE.COM/cb?code=C&state=S"),
        ("scheme case", ["scheme"], .flipCase, [:], "HTTPS://pos.example.com/cb?code=C&state=S"),
        ("path sibling", ["path"], .append(Template("-x")), [:], "https://pos.example.com/cb-x?code=C&state=S"),
        ("userinfo", [], .flipCase, ["userinfo": "evil"], "https://evil@pos.example.com/cb?code=C&state=S"),
        ("port", [], .flipCase, ["port": "8443"], "https://pos.example.com:8443/cb?code=C&state=S"),
        ("fragment", [], .flipCase, ["fragment": "access_token=X"], "https://pos.example.com/cb?code=C&state=S#access_token=X"),
        ("order", [], .flipCase, ["order": "reversed"], "https://pos.example.com/cb?state=S&code=C"),
    ])
    func urlParts(_ name: String, _ parts: [String], _ transform: TamperTransform, _ arguments: [String: String], _ expected: String) throws {
        let rewrites = parts.map { ScriptedBrowser.Rewrite(ParameterTransform(parameter: $0, transform: transform, location: Self.here), variables: [:]) }
        #expect(try ScriptedBrowser.tamper("https://pos.example.com/cb?code=C&state=S", arguments, transforms: rewrites) == expected, "\(name)")
    }

    @Test("a custom-scheme redirect with no path keeps its authority: a segment is added after it")
    func customSchemeSegment() throws {
        let rewrite = ScriptedBrowser.Rewrite(ParameterTransform(parameter: "path", transform: .inject(Template("/x")), location: Self.here), variables: [:])
        #expect(try ScriptedBrowser.tamper("clever-ios-cle1://oauth?code=C&state=S", [:], transforms: [rewrite]) == "clever-ios-cle1://oauth/x?code=C&state=S")
    }

    @Test("a transform that would leave the value as it was is refused, not a silent no-op")
    func noOpRefused() {
        #expect(Self.rewrite(.flipCase).apply(to: "123-_") == nil)
        #expect(Self.rewrite(.dropLast).apply(to: "") == nil)
        #expect(Self.rewrite(.empty).apply(to: "") == nil)
    }

    @Test("a transform with no captured redirect is a harness error, never a pass")
    func missingParameter() async throws {
        let browser = ScriptedBrowser(window: BrowserWindow())
        // No redirect captured yet: the existing message.
        await #expect(throws: DriverError.self) {
            try await browser.perform(.tamper, [:], transforms: [Self.rewrite(.flipCase)])
        }
    }

    @Test("the report says what the transform did")
    func narrative() {
        let action = Action.browser(operation: .tamper, arguments: [], transforms: [
            ParameterTransform(parameter: "state", transform: .flipCase, location: Self.here),
            ParameterTransform(parameter: "code", transform: .append(Template("x")), location: Self.here),
        ])
        #expect(StepNarrative.action(action, actions: []).map(NarrativeMarkup.plain)?.replacingOccurrences(of: "\"", with: "`") == "The browser: an attacker rewrites the captured redirect: sets the given parameters and URL parts (or transforms their captured values), removes the parameters listed in remove, reverses the parameters' order with `state` as captured, with the case of every letter swapped, `code` as captured, with a suffix appended (`x`).")
    }

    // MARK: - Only the named part changes, byte for byte

    /// A redirect whose other parameters carry every kind of encoded byte a server writes: a
    /// bare `+`, `%2B`, `%20`, `%2F`, lower-case hex, a two-byte UTF-8 escape, an empty value and
    /// a parameter with no `=`.
    static let redirect = "https://pos.example.com/oauth/callback?merchant_id=M%2B1&client_id=a+b&code=c%20d%2Fe%2bf&state=x%2By%2Fz%3D&note=caf%C3%A9&empty=&flag#frag%2B"

    /// Every parameter of the redirect but `changed`, as written.
    static func untouched(_ url: String, except changed: Set<String>) -> [Substring] {
        RawQuery(url).pieces.filter { !changed.contains($0.name) }.map(\.raw)
    }

    @Test("a tamper changes only the parameter it names; every other byte stays as the server wrote it", arguments: [
        ("set state", ["state": "forged"], [ParameterTransform]()),
        ("set client_id", ["client_id": "SOMEONE-ELSE"], []),
        ("remove state", ["remove": "state"], []),
        ("flip code's case", [:], [ParameterTransform(parameter: "code", transform: .flipCase, location: here)]),
        ("drop state's last character", [:], [ParameterTransform(parameter: "state", transform: .dropLast, location: here)]),
        ("append to state", [:], [ParameterTransform(parameter: "state", transform: .append(Template("-x")), location: here)]),
        ("empty code", [:], [ParameterTransform(parameter: "code", transform: .empty, location: here)]),
    ])
    func otherParametersSurvive(_ name: String, _ arguments: [String: String], _ transforms: [ParameterTransform]) throws {
        let rewrites = transforms.map { ScriptedBrowser.Rewrite($0, variables: [:]) }
        let tampered = try ScriptedBrowser.tamper(Self.redirect, arguments, transforms: rewrites)
        let changed = Set(arguments.keys.filter { $0 != "remove" } + (arguments["remove"].map { [$0] } ?? []) + transforms.map(\.parameter))
        #expect(Self.untouched(tampered, except: changed) == Self.untouched(Self.redirect, except: changed), "\(name): \(tampered)")
        #expect(tampered.hasPrefix("https://pos.example.com/oauth/callback?"))
        #expect(tampered.hasSuffix("#frag%2B"))
    }

    @Test("a transform keeps the bytes of the characters it does not change")
    func transformsKeepTheirOwnBytes() throws {
        func tampered(_ transform: TamperTransform) throws -> Substring? {
            let url = try ScriptedBrowser.tamper(Self.redirect, [:], transforms: [ScriptedBrowser.Rewrite(ParameterTransform(parameter: "state", transform: transform, location: Self.here), variables: ["s": "+ /"])])
            return RawQuery(url).pieces.first { $0.name == "state" }?.rawValue
        }
        // x%2By%2Fz%3D is "x+y/z=": only the letters change case, their neighbours' escapes stay.
        #expect(try tampered(.flipCase) == "X%2BY%2FZ%3D")
        #expect(try tampered(.dropLast) == "x%2By%2Fz")
        #expect(try tampered(.append(Template("${s}"))) == "x%2By%2Fz%3D%2B%20%2F")
        #expect(try tampered(.empty) == "")
        // A two-byte escape is one character: dropLast removes all of it.
        let note = try ScriptedBrowser.tamper(Self.redirect, [:], transforms: [ScriptedBrowser.Rewrite(ParameterTransform(parameter: "note", transform: .dropLast, location: Self.here), variables: [:])])
        #expect(RawQuery(note).pieces.first { $0.name == "note" }?.rawValue == "caf")
    }

    @Test("a value set by a tamper is encoded so every reader gets it back: a + is %2B, a space %20")
    func setValuesAreEncodedStrictly() throws {
        let url = try ScriptedBrowser.tamper(Self.redirect, ["state": "a+b c/d"], transforms: [])
        #expect(RawQuery(url).pieces.first { $0.name == "state" }?.rawValue == "a%2Bb%20c%2Fd")
        let none = try ScriptedBrowser.tamper("myapp://cb?state=1", ["remove": "state"], transforms: [])
        #expect(none == "myapp://cb")
    }
}

