/// Wall time of a piece of work: a benchmark measures real time by definition, so this is the
/// one place that reads the clock.
enum Stopwatch {
    /// Runs `body` and returns its result with the seconds it took.
    static func time<T>(_ body: () async throws -> T) async rethrows -> (T, Double) {
        let start = ContinuousClock.now
        let value = try await body()
        return (value, seconds(ContinuousClock.now - start))
    }

    /// `duration` in seconds.
    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
