/// Why a flow could not be judged: who broke (``HarnessParty``), where in the spec, and what
/// happened, including what the runner was waiting for.
///
/// Its ``text`` is the one line every report shows: `step 2: driver protocol: driver
/// moltin-python 1.0.0 (python3 d.py) did not answer call products within 20 s; ...`.
public struct HarnessError: Sendable, Equatable {
    /// Where in the flow it happened.
    public enum Place: Sendable, Equatable {
        /// Before the step began: the flow's session could not be started.
        case before(step: Int)
        /// While the step ran.
        case during(step: Int)
        /// After the step, the last one begun: while the flow was ended (a driver that did not
        /// stop as asked, or broke the protocol after the last question).
        case after(step: Int)

        /// The step it names.
        public var step: Int {
            switch self {
            case .before(let step), .during(let step), .after(let step): return step
            }
        }

        /// `step 2`, `before step 1`, `after step 5`.
        public var text: String {
            switch self {
            case .before(let step): return "before step \(step)"
            case .during(let step): return "step \(step)"
            case .after(let step): return "after step \(step)"
            }
        }
    }

    public var party: HarnessParty
    /// What happened and what was awaited, already redacted in a result.
    public var message: String
    /// Where; nil for an error not tied to a step (a result made by hand).
    public var place: Place?
    /// The line in the spec file of the step ``place`` names: JUnit's `<error>`, CI annotations
    /// and the JSON report point there. nil when there is no step to point at.
    public var line: Int?

    public init(party: HarnessParty, message: String, place: Place? = nil, line: Int? = nil) {
        self.party = party
        self.message = message
        self.place = place
        self.line = line
    }

    /// `step 2: driver protocol: <message>`: where, who, what.
    public var text: String {
        (place.map { $0.text + ": " } ?? "") + party.label + ": " + message
    }
}
