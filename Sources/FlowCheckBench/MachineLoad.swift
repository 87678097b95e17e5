import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Whether other work shares the machine: wall-time figures are only comparable when it does not.
enum MachineLoad {
    /// A warning when the one-minute load average is above the core count, else nil.
    static func note() -> String? {
        var loads = [Double](repeating: 0, count: 1)
        guard getloadavg(&loads, 1) == 1 else { return nil }
        let cores = ProcessInfo.processInfo.activeProcessorCount
        guard loads[0] > Double(cores) else { return nil }
        return "load average \(Format.fixed(loads[0], 2)) on \(cores) cores: other processes share the machine, so wall-time figures read low (--cpu adds CPU time, which suffers less)"
    }
}
