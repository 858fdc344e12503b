extension ClosedRange {
    /// `value` if the range holds it, else the nearer end: a colour temperature past what a light takes, read as
    /// the light would take it.
    package func clamping(_ value: Bound) -> Bound { Swift.min(Swift.max(value, lowerBound), upperBound) }
}
