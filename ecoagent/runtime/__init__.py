"""Run infrastructure: progress lines, child processes, resource usage, the great-expectations runner."""
