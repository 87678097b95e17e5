/// `docs/protocol-actions.md`: every app action a driver performs, with its arguments and
/// result fields, per provider, rendered from the providers' own declarations (their
/// ``ProviderDescription/actions``), the ones the loader checks specs against and the runner
/// sends. A test fails when the committed page is not this rendering.
public enum ActionReference {
    /// The command that rewrites the committed page.
    public static let regenerate = "FLOWCHECK_RECORD_GOLDEN=1 swift test --filter GeneratedPagesTests"

    /// The page for `providers`, in their registration order.
    public static func markdown(providers: ProviderCatalog) -> String {
        var out = """
        <!-- Generated from each provider kit's actions (Sources/FlowCheckProviders/*/*Kit.swift): do not edit. Rewrite: \(regenerate) -->
        # Driver actions, per provider

        What a driver is asked to do in a `call` message (`{"type":"call","id":3,"action":"products","arguments":{}}`) \
        and what it answers in `ok` (`{"type":"ok","id":3,"result":{...}}`), for every provider. \
        Argument and result values are strings on the wire; the type says what the string holds. \
        A result field a step does not check may be left out; one written `fired.` is a prefix \
        (`fired.LABEL`, one field per label). The same lists are what `hello` names in its \
        `providers` and what the spec loader accepts in a step's `app` and `with`.

        Providers: \(providers.all.map { "[\($0.id.rawValue)](#\(anchor($0)))" }.joined(separator: ", ")).

        """
        for provider in providers.all {
            out += "\n## \(provider.id.rawValue): \(provider.title)\n\n"
            out += "| action | what it stands for | arguments | result fields |\n| --- | --- | --- | --- |\n"
            for action in provider.actions {
                out += "| `\(action.name)` | \(cell(summary(action))) | \(cell(arguments(action))) | \(action.results.isEmpty ? "none" : action.results.map { "`\($0)`" }.joined(separator: ", ")) |\n"
            }
            out += "\nStore fields (the `store` answer): \(storeFields(provider)).\n"
        }
        return out
    }

    /// `` `accessToken`, `tokenType` ``, or what to answer for a provider whose SDK stores
    /// nothing (an empty list read as a sentence that stops short).
    static func storeFields(_ provider: any ProviderDescription) -> String {
        if provider.storeFields.isEmpty { return "none: its SDK keeps no token on the device, so the answer is `{}`" }
        return provider.storeFields.map { "`\($0)`" }.joined(separator: ", ")
    }

    /// `moltin-moltin-seed-003`: the anchor GitHub gives the provider's heading.
    static func anchor(_ provider: any ProviderDescription) -> String {
        let heading = "\(provider.id.rawValue): \(provider.title)".lowercased()
        var anchor = ""
        for character in heading {
            if character.isLetter || character.isNumber || character == "-" || character == "_" {
                anchor.append(character)
            } else if character == " " {
                anchor.append("-")
            }
        }
        return anchor
    }

    /// The summary, and what the action means to the invariants.
    static func summary(_ action: Vocabulary.ActionSignature) -> String {
        var text = action.summary
        if action.clearsStore { text += "; removes the stored token on the app's request" }
        switch action.endsLogin {
        case .never: break
        case .always: text += "; ends the login in progress (the browser must be dismissed)"
        case .unlessResult(let field, let value): text += "; ends the login in progress unless `\(field)` is `\(value)`"
        }
        return text
    }

    /// `` `clientId` (text), `concurrent` (optional, a whole number from 1 to 64) ``.
    static func arguments(_ action: Vocabulary.ActionSignature) -> String {
        let all = action.required.map { ($0, true) } + action.optional.map { ($0, false) }
        if all.isEmpty { return "none" }
        return all.map { name, required in
            var notes: [String] = []
            if !required {
                if let dependent = action.dependents.first(where: { $0.argument == name }) {
                    notes.append("when `\(dependent.on)` is \(dependent.values.map { "`\($0)`" }.joined(separator: " or ")), and only then")
                } else {
                    notes.append("optional")
                }
            }
            notes.append(describe(action.type(of: name)))
            if action.transformable.contains(name) { notes.append("or a tamper transform") }
            return "`\(name)` (\(notes.joined(separator: ", ")))"
        }.joined(separator: "; ")
    }

    static func describe(_ type: Vocabulary.ArgumentType) -> String {
        switch type {
        case .text: return "text"
        case .url: return "an absolute URL"
        case .count(let range): return "a whole number from \(range.lowerBound) to \(range.upperBound)"
        case .oneOf(let words): return "one of " + words.map { "`\($0)`" }.joined(separator: ", ")
        case .listOf(let words): return "some of " + words.map { "`\($0)`" }.joined(separator: ", ") + ", comma-separated"
        }
    }

    /// Text for a table cell: no line breaks, `|` escaped.
    static func cell(_ text: String) -> String {
        text.split(whereSeparator: \.isNewline).joined(separator: " ").replacing("|", with: "\\|")
    }
}
