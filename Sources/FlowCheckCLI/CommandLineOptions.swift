import Foundation

/// The parsed command line of `flowcheck`.
public struct CommandLineOptions: Sendable, Equatable {
    public var paths: [String] = []
    public var junitPath = "reports/junit.xml"
    public var markdownPath = "reports/flowcheck.md"
    public var filter: String?
    public var list = false
    public var help = false
    public var jobs: Int?

    public init() {}

    /// A command line that cannot be understood.
    public struct UsageError: Error, Sendable, Equatable, CustomStringConvertible {
        public var description: String
    }

    public static let usage = """
    USAGE: flowcheck [options] <file-or-dir>...

    Runs JSON flow specs against the SDK core and an in-process fake provider server, and writes
    a JUnit XML and a Markdown report.

    OPTIONS:
      --junit PATH      JUnit XML report (default: reports/junit.xml)
      --markdown PATH   Markdown report (default: reports/flowcheck.md)
      --filter REGEX    run only the flows whose id matches REGEX
      --jobs N          flows run at once (default: the number of cores)
      --list            list the flows without running them
      -h, --help        show this help

    EXIT CODES:
      0  every flow passed
      1  at least one flow failed
      2  usage error or an invalid spec (the valid specs still run; reports are still written)
      3  the harness itself failed (a flow could not be run, or a report could not be written)

    EXAMPLE:
      flowcheck specs/
      flowcheck --filter '^MLT-' --markdown /tmp/moltin.md specs/
    """

    /// Parses arguments (without the program name).
    /// - Throws: ``UsageError`` naming the problem.
    public static func parse(_ arguments: [String]) throws(UsageError) -> CommandLineOptions {
        var options = CommandLineOptions()
        var index = 0
        func value(for flag: String) throws(UsageError) -> String {
            index += 1
            guard index < arguments.count, !arguments[index].hasPrefix("--") else {
                throw UsageError(description: "\(flag) needs a value")
            }
            return arguments[index]
        }
        var onlyPaths = false
        while index < arguments.count {
            let argument = arguments[index]
            if onlyPaths || !argument.hasPrefix("-") || argument == "-" {
                options.paths.append(argument)
            } else {
                var flag = argument
                var inline: String?
                if let equals = argument.firstIndex(of: "="), argument.hasPrefix("--") {
                    flag = String(argument[..<equals])
                    inline = String(argument[argument.index(after: equals)...])
                }
                func take() throws(UsageError) -> String {
                    if let inline { return inline }
                    return try value(for: flag)
                }
                switch flag {
                case "--": onlyPaths = true
                case "-h", "--help": options.help = true
                case "--list": options.list = true
                case "--junit": options.junitPath = try take()
                case "--markdown": options.markdownPath = try take()
                case "--filter":
                    let pattern = try take()
                    guard (try? NSRegularExpression(pattern: pattern)) != nil else {
                        throw UsageError(description: "--filter: invalid regular expression \(pattern)")
                    }
                    options.filter = pattern
                case "--jobs":
                    let text = try take()
                    guard let jobs = Int(text), jobs > 0, jobs <= 256 else {
                        throw UsageError(description: "--jobs takes a whole number from 1 to 256, not \(text)")
                    }
                    options.jobs = jobs
                default:
                    let known = ["--junit", "--markdown", "--filter", "--jobs", "--list", "--help"]
                    let hint = known.first { Self.close(flag, $0) }.map { " (did you mean \($0)?)" } ?? ""
                    throw UsageError(description: "unknown option \(flag)\(hint)")
                }
            }
            index += 1
        }
        if !options.help && options.paths.isEmpty {
            throw UsageError(description: "no spec file or folder given (try: flowcheck specs/)")
        }
        return options
    }

    private static func close(_ a: String, _ b: String) -> Bool {
        let a = Array(a), b = Array(b)
        guard abs(a.count - b.count) <= 2 else { return false }
        var row = Array(0...b.count)
        for i in 1...max(a.count, 1) where !a.isEmpty {
            var next = [i] + Array(repeating: 0, count: b.count)
            for j in 1...max(b.count, 1) where !b.isEmpty {
                next[j] = min(row[j] + 1, next[j - 1] + 1, row[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            row = next
        }
        return row[b.count] <= 2
    }
}
