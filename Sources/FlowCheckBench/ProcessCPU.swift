#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// CPU time this process has used, on every thread: on a shared machine it is steadier than
/// wall time, because other processes' load lengthens waits but not our own work.
enum ProcessCPU {
    /// User plus system seconds so far.
    static func seconds() -> Double {
        #if os(Linux)
        seconds(of: RUSAGE_SELF.rawValue)
        #else
        seconds(of: RUSAGE_SELF)
        #endif
    }

    /// User plus system seconds of every child process waited for so far.
    static func childrenSeconds() -> Double {
        #if os(Linux)
        seconds(of: RUSAGE_CHILDREN.rawValue)
        #else
        seconds(of: RUSAGE_CHILDREN)
        #endif
    }

    private static func seconds(of who: Int32) -> Double {
        var usage = rusage()
        guard getrusage(who, &usage) == 0 else { return 0 }
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }
}
