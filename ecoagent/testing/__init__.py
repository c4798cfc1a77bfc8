"""Test doubles the tests and the benchmark scripts share (the stand-in LLM server); the pipeline never uses them."""
