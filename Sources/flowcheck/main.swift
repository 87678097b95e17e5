import FlowCheckCLI
import Foundation

// The executable stays thin: all behaviour lives in FlowCheckCLI, where it is tested.
let console = FlowCheckCommand.Console(
    out: { print($0) },
    err: { FileHandle.standardError.write(Data(($0 + "\n").utf8)) }
)
let code = await FlowCheckCommand().run(Array(CommandLine.arguments.dropFirst()), console: console)
exit(code.rawValue)
