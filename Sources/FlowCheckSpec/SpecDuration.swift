/// Durations as specs write them (`"61m"`, `"1h30m"`, `"90s"`), for callers outside the
/// loader: `flowcheck serve`'s control API moves its clock by them.
public enum SpecDuration {
    /// Whole seconds, or nil when `text` is not a spec duration.
    public static func seconds(_ text: String) -> Int? {
        SpecDecoder.parseDuration(text)
    }
}
