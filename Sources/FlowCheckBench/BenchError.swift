/// Why a benchmark could not report a figure; the entry point maps it to an exit code.
struct BenchError: Error, CustomStringConvertible {
    /// Exit codes, the same scale as `flowcheck`'s.
    enum Exit: Int32 {
        case flowFailed = 1
        case usage = 2
        case harness = 3
    }

    private enum Kind {
        case usage(String)
        case flowsFailed(String)
        case invalidSpecs(String)
        case harness(String)
    }

    private let kind: Kind

    /// A bad command line.
    static func usage(_ message: String) -> BenchError { BenchError(kind: .usage(message)) }
    /// A flow did not pass: a figure for a failing run would measure the wrong thing.
    static func flowsFailed(_ message: String) -> BenchError { BenchError(kind: .flowsFailed(message)) }
    /// The suite has specs that do not load.
    static func invalidSpecs(_ message: String) -> BenchError { BenchError(kind: .invalidSpecs(message)) }
    /// The harness itself broke: a server that would not start, a socket error, a bad answer.
    static func harness(_ message: String) -> BenchError { BenchError(kind: .harness(message)) }

    var exit: Exit {
        switch kind {
        case .usage, .invalidSpecs: .usage
        case .flowsFailed: .flowFailed
        case .harness: .harness
        }
    }

    var description: String {
        switch kind {
        case .usage(let message), .flowsFailed(let message), .invalidSpecs(let message), .harness(let message): message
        }
    }
}
