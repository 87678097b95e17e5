/// Flow ids in the order a person reads them: runs of digits compare as numbers, so
/// `CLV-FULL-2` comes before `CLV-FULL-10` (as text it came after), then as text.
public enum NaturalOrder {
    /// Whether `a` sorts before `b`.
    public static func precedes(_ a: String, _ b: String) -> Bool {
        var left = a.unicodeScalars[...], right = b.unicodeScalars[...]
        while let l = left.first, let r = right.first {
            if isDigit(l), isDigit(r) {
                let leftRun = left.prefix(while: isDigit), rightRun = right.prefix(while: isDigit)
                left = left.dropFirst(leftRun.count)
                right = right.dropFirst(rightRun.count)
                // Leading zeros aside, the longer run is the larger number.
                let leftDigits = leftRun.drop { $0 == "0" }, rightDigits = rightRun.drop { $0 == "0" }
                if leftDigits.count != rightDigits.count { return leftDigits.count < rightDigits.count }
                if !leftDigits.elementsEqual(rightDigits) { return String(leftDigits) < String(rightDigits) }
                if leftRun.count != rightRun.count { return leftRun.count < rightRun.count }
                continue
            }
            if l != r { return l.value < r.value }
            left = left.dropFirst()
            right = right.dropFirst()
        }
        return left.isEmpty && !right.isEmpty
    }

    private static func isDigit(_ scalar: Unicode.Scalar) -> Bool {
        ("0"..."9").contains(scalar)
    }
}
