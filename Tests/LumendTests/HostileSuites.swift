import Testing

/// The suites that flood a real daemon (the socket, HTTP, LIFX), run one after another: each measures a good
/// client's latency and the daemon's memory under its own flood, which another suite's flood on the same two cores
/// would spoil.
@Suite("Hostile clients", .serialized)
enum HostileSuites {}
