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
        }
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
        #expect(StepNarrative.action(action, actions: []).map(NarrativeMarkup.plain)?.replacingOccurrences(of: "\"", with: "`") == "The browser: an attacker rewrites the captured redirect: sets the given parameters (or transforms their captured values), removes those listed in remove with `state` as captured, with the case of every letter swapped, `code` as captured, with a suffix appended (`x`).")
    }
}
