import FlowCheckSDK
import Foundation

// A process that saves tokens into a FileTokenStore as fast as it can, for tests that kill it
// mid-save (SIGKILL) and then check what a killed save leaves behind.
//
//   store-churn DIR KEY
//
// Each value is "token-N:" followed by N's digits repeated to 256 KiB, so a torn file is
// recognisable and a save takes long enough to be caught mid-write. Prints "saving" once the
// store is open, then saves until killed.
let arguments = CommandLine.arguments
guard arguments.count == 3 else {
    FileHandle.standardError.write(Data("usage: store-churn DIR KEY\n".utf8))
    exit(2)
}
do {
    let store = try FileTokenStore(directory: URL(fileURLWithPath: arguments[1], isDirectory: true))
    FileHandle.standardOutput.write(Data("saving\n".utf8))
    var count = 0
    while true {
        count += 1
        try store.write(Data(StoreChurnValue.make(count).utf8), for: arguments[2])
    }
} catch {
    FileHandle.standardError.write(Data("store-churn: \(error)\n".utf8))
    exit(1)
}

enum StoreChurnValue {
    static func make(_ count: Int) -> String {
        let head = "token-\(count):"
        return head + String(repeating: String(count), count: (256 * 1024) / String(count).count)
    }
}
