#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// The C maths functions under names that do not clash with Swift's own overloads.
@inline(__always) func Foundation_exp(_ x: Double) -> Double { exp(x) }
@inline(__always) func Foundation_log(_ x: Double) -> Double { log(x) }
@inline(__always) func Foundation_cos(_ x: Double) -> Double { cos(x) }
