import FlowCheckRunner

/// Draws what happened in a flow as a Mermaid `sequenceDiagram` (GitHub renders it): the app,
/// the SDK, the browser, another client, and one participant per provider endpoint, in the
/// order the events occurred. Paths only (no query strings), statuses, and no secrets: the
/// events were redacted by the runner.
enum SequenceDiagram {
    static func render(_ flow: FlowResult) -> String? {
        guard !flow.events.isEmpty else { return nil }
        var endpoints: [String] = []
        func endpoint(_ path: String) -> String {
            let name = endpointName(path)
            if let index = endpoints.firstIndex(of: name) { return "E\(index + 1)" }
            endpoints.append(name)
            return "E\(endpoints.count)"
        }
        var lines: [String] = []
        var usesBrowser = false
        var usesClient = false
        for event in flow.events {
            switch event {
            case .call(let step, let name):
                lines.append("    App->>SDK: \(text("\(step). \(name)"))")
            case .outcome(_, let outcome):
                lines.append("    SDK-->>App: \(text(outcome))")
            case .request(_, let actor, let method, let path, let status):
                if actor == .browser { usesBrowser = true }
                if actor == .client { usesClient = true }
                let target = endpoint(path)
                lines.append("    \(actor.rawValue)->>\(target): \(text("\(method) \(path)"))")
                lines.append("    \(target)-->>\(actor.rawValue): \(status)")
            case .opened(_, let path):
                usesBrowser = true
                lines.append("    SDK->>Browser: \(text("open \(path)"))")
            case .dismissed:
                usesBrowser = true
                lines.append("    SDK->>Browser: dismiss")
            case .redirect(_, let target):
                usesBrowser = true
                lines.append("    Browser-->>App: \(text("redirect \(target)"))")
            case .note(let step, let note):
                lines.append("    Note over App,SDK: \(text("\(step). \(note)"))")
            }
        }
        var participants = ["    participant App", "    participant SDK"]
        if usesBrowser { participants.append("    participant Browser") }
        if usesClient { participants.append("    participant Client as Other client") }
        for (index, name) in endpoints.enumerated() {
            participants.append("    participant E\(index + 1) as \(text(name))")
        }
        return (["```mermaid", "sequenceDiagram"] + participants + lines + ["```"]).joined(separator: "\n")
    }

    /// An endpoint's name: its path with identifier segments (those holding a digit) folded
    /// into `{id}`, so `/v3/merchants/MERCH1` and `/v3/merchants/MERCH2` are one participant.
    static func endpointName(_ path: String) -> String {
        let segments = path.components(separatedBy: "/").map { segment in
            segment.contains(where: \.isNumber) && segment.count > 2 ? "{id}" : segment
        }
        let joined = segments.joined(separator: "/")
        return joined.isEmpty ? "/" : joined
    }

    /// Message text Mermaid shows exactly as sent: each character that would end a statement,
    /// start a comment, open an entity or be read as HTML is written as Mermaid's entity code
    /// (`#59;` for `;`, `#35;` for `#`, ...), which Mermaid turns back into the character; a
    /// line break as `\n` text, other control characters as `\u{X}` text.
    static func text(_ s: String) -> String {
        var out = ""
        for scalar in s.unicodeScalars {
            switch scalar {
            case ";": out += "#59;"
            case "#": out += "#35;"
            case "<": out += "#lt;"
            case ">": out += "#gt;"
            case "&": out += "#38;"
            case "\n": out += "#92;n"
            case "\r": out += "#92;r"
            case "\\": out += "#92;"
            default:
                if scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || scalar == "\u{2028}" || scalar == "\u{2029}" {
                    out += "#92;u{\(String(scalar.value, radix: 16, uppercase: true))}"
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out
    }
}
