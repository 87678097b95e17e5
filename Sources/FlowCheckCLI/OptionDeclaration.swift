/// One command-line option, declared once: its spellings, value, commands, help line, doc
/// text, value check and what it sets. The parser, `--help` and `docs/command-line.md` are all
/// made from ``CommandLineOptions/declarations``, so an option cannot be parsed and left out of
/// the help, or documented under another name (Hurl keeps one file per option for the same
/// reason: `docs/spec/cmdline-opts-hurl/*.option`).
struct OptionDeclaration: Sendable {
    typealias Command = CommandLineOptions.Command
    typealias Apply = @Sendable (inout CommandLineOptions, String) throws(CommandLineOptions.UsageError) -> Void

    /// Its spellings, the long one last (`-h`, `--help`).
    let names: [String]
    /// The value's placeholder (`PATH`); nil for a flag, which takes no value.
    let value: String?
    /// The commands it has an effect with, which list it in `--help` and the docs; given to
    /// any other command it is refused (``CommandLineOptions/parse(_:)``, after the checks that
    /// name a fix of their own).
    let commands: [Command]
    /// Given to every command that lists it: the docs show it once, under "Any command".
    let general: Bool
    /// A command it is listed under cannot run without it (`matrix --driver`).
    let required: Bool
    /// It may be given more than once, each adding a value.
    let repeatable: Bool
    /// The `--help` text: one paragraph, wrapped when printed.
    let help: String
    /// The docs' text: Markdown, one paragraph (a table cell).
    let doc: String
    /// Checks the value and sets the options from it (a flag is given ""); throws the refusal
    /// as one line naming the option.
    let apply: Apply

    init(
        _ names: [String], value: String? = nil, commands: [Command], general: Bool = false, required: Bool = false, repeatable: Bool = false,
        help: String, doc: String, apply: @escaping Apply
    ) {
        self.names = names
        self.value = value
        self.commands = commands
        self.general = general
        self.required = required
        self.repeatable = repeatable
        self.help = help
        self.doc = doc
        self.apply = apply
    }

    /// The long spelling, as messages and "did you mean" name it.
    var name: String { names[names.count - 1] }

    /// `--junit PATH`, `-h, --help`.
    var label: String {
        names.joined(separator: ", ") + (value.map { " " + $0 } ?? "")
    }

    /// The grammars of the command line: `explore` has its own (its arguments are all options),
    /// every other command shares one.
    enum Grammar: Sendable {
        case main, explore

        /// The grammar `command`'s arguments are read with.
        init(_ command: Command) {
            self = command == .explore ? .explore : .main
        }
    }

    /// Whether the grammar of any of its commands is `grammar`.
    func belongs(to grammar: Grammar) -> Bool {
        commands.contains { Grammar($0) == grammar }
    }
}

extension CommandLineOptions {
    /// The declaration `flag` names in `grammar`: the one that lists `command` first (`--driver`
    /// is declared for a run and for `matrix`), else any.
    static func declaration(named flag: String, in grammar: OptionDeclaration.Grammar, for command: Command) -> OptionDeclaration? {
        let named = declarations.filter { $0.names.contains(flag) && $0.belongs(to: grammar) }
        return named.first { $0.commands.contains(command) } ?? named.first
    }

    /// Every long spelling of `grammar`, once each, in declaration order: what "did you mean"
    /// suggests from.
    static func flags(of grammar: OptionDeclaration.Grammar) -> [String] {
        var flags: [String] = []
        for declaration in declarations where declaration.belongs(to: grammar) && !flags.contains(declaration.name) {
            flags.append(declaration.name)
        }
        return flags
    }
}
