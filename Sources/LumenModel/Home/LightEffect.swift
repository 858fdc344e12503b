/// What a light does besides holding its state, as a Hue bulb does when told: cycle through the colours, or
/// breathe (dim and brighten) so that someone can find it. Kept while lumend runs, not saved: a bulb that loses
/// power stops both.
public struct LightEffect: Sendable, Hashable {
    /// How long a light breathes when asked.
    public enum Breathing: String, Sendable, Hashable {
        /// One breath, about a second (Hue's `alert: select`).
        case once
        /// Breathing for 15 seconds (Hue's `alert: lselect`).
        case long

        /// How long it lasts, in milliseconds.
        public var milliseconds: Double { self == .once ? 1_000 : 15_000 }
    }

    /// Whether it cycles through the colours (a colour light only).
    public var colorLoop: Bool
    /// Whether it is breathing, and for how long it was asked to.
    public var breathing: Breathing?

    /// An effect.
    public init(colorLoop: Bool = false, breathing: Breathing? = nil) {
        self.colorLoop = colorLoop
        self.breathing = breathing
    }

    /// Doing nothing besides holding its state.
    public static let none = LightEffect()

    /// The effect as the `effect` connection reads: `breathe` while it breathes, else `colorLoop` while it
    /// cycles, else `none`.
    public var name: String { breathing != nil ? "breathe" : colorLoop ? "colorLoop" : "none" }
}
