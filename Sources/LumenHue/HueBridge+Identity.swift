extension HueBridge {
    /// The bridge ID of the bridge that simulates the home `homeID` (`001788FFFE` and six hex digits), as
    /// `/api/config` gives it; a bridge's TLS certificate names it, in lower case, as its subject.
    public static func bridgeID(homeID: String) -> String { HueValues.bridgeIdentity(homeID: homeID).bridgeID }
}
