import Foundation

/// Number formatting for figure lines.
enum Format {
    /// `value` with `digits` decimals, in the POSIX locale whatever the environment says.
    static func fixed(_ value: Double, _ digits: Int) -> String {
        String(format: "%.\(digits)f", locale: Locale(identifier: "en_US_POSIX"), value)
    }

    /// A rate or count rounded to a whole number.
    static func whole(_ value: Double) -> String {
        value.isFinite ? String(Int(value.rounded())) : "inf"
    }
}
