import LumenServer

#if canImport(Glibc)
    import Glibc
#endif

// Kept tiny on purpose: top-level code here is main-actor isolated, so everything else lives in LumenServer.
exit(await Daemon.main(arguments: Array(CommandLine.arguments.dropFirst()), environment: processEnvironment()))
