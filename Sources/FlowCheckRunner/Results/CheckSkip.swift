/// A check the harness could not make, and why: reported as skipped, never as passed.
public struct CheckSkip: Sendable, Equatable {
    public var step: Int
    public var line: Int
    /// What was not checked, e.g. `storeFiles.ownerOnly`.
    public var check: String
    public var reason: String

    public init(step: Int, line: Int, check: String, reason: String) {
        self.step = step
        self.line = line
        self.check = check
        self.reason = reason
    }

    /// One line: `step 2: storeFiles.ownerOnly skipped: the store is not file-backed`.
    public var message: String { "step \(step): \(check) skipped: \(reason)" }
}
