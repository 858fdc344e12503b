import LumenDaemon
import LumenService

#if canImport(Glibc)
    import Glibc
#endif

// Kept tiny on purpose: top-level code here is main-actor isolated, so everything else lives in LumenServer.
// Before anything else, and before any other thread exists: a stop signal must never take its default action.
StopSignals.install()
// The main thread becomes lumend's main event loop: no top-level `await`, so no Dispatch main queue either.
exit(Daemon.mainOnCurrentThread(arguments: Array(CommandLine.arguments.dropFirst()), environment: processEnvironment()))
