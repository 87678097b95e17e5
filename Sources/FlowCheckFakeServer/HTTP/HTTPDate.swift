import Foundation

/// HTTP's preferred date form (RFC 9110 §5.6.7, IMF-fixdate), written by the fakes from
/// their own clock: `Sun, 06 Nov 1994 08:49:37 GMT`. Computed from the seconds since 1970
/// (proleptic Gregorian, UTC), with no formatter or locale to differ between machines.
enum HTTPDate {
    private static let days = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// `date` as an IMF-fixdate, its fraction of a second rounded up: a date names a whole
    /// second, and one a little after the instant meant is the one a client may wait for.
    static func imfFixdate(_ date: Date) -> String {
        let seconds = Int(date.timeIntervalSince1970.rounded(.up))
        let (day, second) = (seconds.floorDivided(by: 86_400), seconds.floorModulo(86_400))
        // Days since 1970-01-01 to a civil date (Howard Hinnant's algorithm).
        let shifted = day + 719_468
        let era = shifted.floorDivided(by: 146_097)
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let dayOfMonth = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let weekday = days[day.floorModulo(7)]
        return "\(weekday), \(two(dayOfMonth)) \(months[month - 1]) \(year) \(two(second / 3600)):\(two(second / 60 % 60)):\(two(second % 60)) GMT"
    }
}

private extension Int {
    func floorDivided(by divisor: Int) -> Int {
        let quotient = self / divisor
        return (self % divisor != 0 && (self < 0) != (divisor < 0)) ? quotient - 1 : quotient
    }

    func floorModulo(_ divisor: Int) -> Int {
        self - floorDivided(by: divisor) * divisor
    }
}
