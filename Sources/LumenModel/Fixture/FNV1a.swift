/// The 64-bit FNV-1a hash: a digest that stays the same across runs, builds and platforms (unlike `Hasher`),
/// for identities derived from names and for telling one fixture's text from another's. It is not a defence
/// against anyone choosing inputs that collide.
public enum FNV1a {
    /// The hash of no bytes.
    public static let offsetBasis: UInt64 = 0xcbf2_9ce4_8422_2325

    /// The hash of `bytes`, or, given `hash`, of whatever gave `hash` followed by `bytes`.
    @inlinable
    public static func hash(_ bytes: some Sequence<UInt8>, continuing hash: UInt64 = offsetBasis) -> UInt64 {
        var hash = hash
        for byte in bytes {
            hash ^= UInt64(byte)
            hash &*= 0x100_0000_01b3
        }
        return hash
    }
}
