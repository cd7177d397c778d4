"""Test doubles shipped with proseval: a fake OpenAI-compatible server for tests, benches and dry runs."""
