import Dispatch
import LumenCtlTool
import LumenDaemon
import LumenService

#if canImport(Glibc)
    import Glibc
#endif

// lumend and lumenctl in one binary, which `make install` and the package install as lumend with lumenctl
// a link to it: the Swift runtime linked in once rather than twice. Which program runs is chosen by the name
// it is called by, as lumend and lumenctl do on their own.
let name = CommandLine.arguments.first.map { $0.split(separator: "/").last.map(String.init) ?? $0 } ?? ""
let arguments = Array(CommandLine.arguments.dropFirst())
switch name {
case "lumend":
    // As lumend's own main: stop signals first, before any other thread exists; the main thread becomes the
    // main event loop, with no Dispatch main queue.
    StopSignals.install()
    exit(Daemon.mainOnCurrentThread(arguments: arguments, environment: processEnvironment()))
case "lumenctl":
    // As lumenctl's own top-level `await` would: its commands run on the main queue, which this thread drains.
    Task { exit(await LumenCtl.main(arguments)) }
    dispatchMain()
default:
    let message = "lumen: call me as lumend or lumenctl (a link named so), not '\(name)'\n"
    _ = message.withCString { write(2, $0, strlen($0)) }
    exit(2)
}
