import Foundation

// Top-level code is main-actor isolated; the commands live in other files.
exit(await LumenCtl.main(Array(CommandLine.arguments.dropFirst())))
