import LumenProtocol

/// A step on the `Home` actor made once and taken many times, at once where the caller finds the actor free
/// (``Home/now(_:_:)``): a writable value's write, taken for every `set`.
///
/// ``Home/now(_:)`` takes a closure made for one call, and must make a callable copy of it for each (two
/// allocations); a step is made callable once, when it is made.
///
/// ```swift
/// let toggle = HomeStep<LightID, CommandReceipt> { home, light throws(LumenError) in
///     try home.send(LightChange(isOn: true), to: light)
/// }
/// let receipt = try home.now(toggle, "lamp")
/// ```
public struct HomeStep<Input, Output>: Sendable {
    @usableFromInline
    let body: @Sendable (Home, Input) throws(LumenError) -> Output

    /// A step that does `body` with the home's actor held.
    public init(_ body: @escaping @Sendable (isolated Home, Input) throws(LumenError) -> Output) {
        // An isolated parameter changes what the compiler checks, not how the function is called (as
        // `assumeIsolated` relies on too): the copy is called only where the actor is held, by `now` or by
        // `callAsFunction`, whose caller must hold it.
        self.body = unsafeBitCast(body, to: (@Sendable (Home, Input) throws(LumenError) -> Output).self)
    }

    /// Takes the step, on the home's actor.
    @inlinable
    public func callAsFunction(_ home: isolated Home, _ input: Input) throws(LumenError) -> Output {
        try body(home, input)
    }
}

extension Home {
    /// Takes `step` on the actor at once, on the calling thread, when the actor is free; `nil` when it is
    /// busy, as ``now(_:)`` does.
    @inlinable
    public nonisolated func now<Input, Output>(_ step: HomeStep<Input, Output>, _ input: Input) throws(LumenError)
        -> Output?
    {
        try takeNow { () throws(LumenError) in try step.body(self, input) }
    }
}
