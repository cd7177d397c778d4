"""What every command is made of, proseval's own and a benchmark's: the common options, the
consoles and the `error:` line, role requests from flags, and running a task from a command
(benchmarks reach all of it through `proseval.kit`)."""
