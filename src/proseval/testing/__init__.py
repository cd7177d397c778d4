"""Test doubles shipped with proseval: fake OpenAI-compatible (with its batch API) and Anthropic
(Messages API and Message Batches) servers for tests, benches and dry runs."""
