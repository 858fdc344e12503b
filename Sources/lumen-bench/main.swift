// Top-level code is main-actor isolated; the benchmarks live in other files.
await Benchmarks.main(arguments: Array(CommandLine.arguments.dropFirst()))
