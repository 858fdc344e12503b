import LumenCtlTool

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// Top-level code is main-actor isolated; the commands live in LumenCtlTool.
exit(await LumenCtl.main(Array(CommandLine.arguments.dropFirst())))
