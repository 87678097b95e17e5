/// The operating system's CSPRNG, through `SystemRandomNumberGenerator` (`getrandom(2)` on
/// Linux, `arc4random_buf` on Apple platforms): the random source for production use.
public struct SystemRandomSource: RandomSource {
    /// Creates a source reading the system generator.
    public init() {}

    /// `count` bytes from the system generator.
    /// - Parameter count: How many bytes.
    /// - Returns: An array of `count` random bytes.
    public func bytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        var output: [UInt8] = []
        output.reserveCapacity(count)
        while output.count < count {
            var word = generator.next()
            for _ in 0..<min(8, count - output.count) {
                output.append(UInt8(truncatingIfNeeded: word))
                word >>= 8
            }
        }
        return output
    }
}
