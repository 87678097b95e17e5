import Foundation

/// Reads `Retry-After` (RFC 9110 §10.2.3) off a 429 (RFC 6585 §4) or 503 (RFC 9110 §15.6.4).
enum RetryAfter {
    /// Seconds from `now` the server asked the client to wait before trying again; nil for
    /// another status, no `Retry-After`, or a value that is neither form.
    /// - Parameters:
    ///   - response: The answer.
    ///   - now: The client's clock, for the HTTP-date form.
    static func delay(of response: TransportResponse, now: Date) -> TimeInterval? {
        guard response.status == 429 || response.status == 503,
              let value = response.header("Retry-After")?.trimmingCharacters(in: .whitespaces), !value.isEmpty else {
            return nil
        }
        // delay-seconds = 1*DIGIT
        if value.allSatisfy({ $0.isASCII && $0.isNumber }) {
            return Double(value)
        }
        // HTTP-date, preferred form (IMF-fixdate): "Sun, 06 Nov 1994 08:49:37 GMT".
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        guard let date = formatter.date(from: value) else { return nil }
        return max(0, date.timeIntervalSince(now))
    }
}
