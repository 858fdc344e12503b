/// The version of Lumen, and of the wire protocol it speaks.
public enum LumenVersion {
    /// The version string `--version` and `hello` report.
    public static let string = "0.1.0"
    /// The wire protocol's version, as `hello` reports it: clients check it, and it changes only when a
    /// published name or meaning would.
    public static let wireProtocol = 1
}
