import LumenProtocol

/// What the simulation scope does to a front that apps pair with (the Hue bridge): press its link button, and
/// pair a user by name, for a test that needs a fixed one. lumend hands its Hue bridge to the scope context.
public protocol PairingControls: Sendable {
    /// Presses the link button: apps may pair for the next 30 s of simulation time.
    func pressLinkButton() async

    /// Pairs a user called `username` for an app that calls itself `deviceType`, without the link button.
    /// - Throws: ``LumenError`` `alreadyExists` for a name paired already, `invalidParams` for a name the front
    ///   refuses.
    func pairUser(_ username: String, deviceType: String) async throws(LumenError)
}
