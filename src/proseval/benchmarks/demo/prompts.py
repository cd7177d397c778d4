"""A handful of short writing prompts that ship with proseval, for checking a setup end to end."""

from __future__ import annotations

PROMPTS: list[dict[str, object]] = [
    {
        "id": "demo/email-delay",
        "genre": "email",
        "words": 120,
        "prompt": "Write a short email to a customer explaining that their order will arrive three days late "
        "because of a storm, and offer a 10% discount on their next purchase.",
    },
    {
        "id": "demo/story-lighthouse",
        "genre": "fiction",
        "words": 150,
        "prompt": "Write a very short story about a lighthouse keeper who finds a message in a bottle.",
    },
    {
        "id": "demo/summary-bikes",
        "genre": "summary",
        "words": 80,
        "prompt": "In plain language, summarise why cities are adding protected bicycle lanes and one "
        "argument against them.",
    },
    {
        "id": "demo/product-kettle",
        "genre": "marketing",
        "words": 100,
        "prompt": "Write a product description for an electric kettle that boils water in 90 seconds and "
        "switches itself off.",
    },
    {
        "id": "demo/memo-meeting",
        "genre": "business",
        "words": 100,
        "prompt": "Write a memo to a team announcing that the weekly meeting moves from Monday to Wednesday, "
        "with the reason and the new time.",
    },
    {
        "id": "demo/poem-autumn",
        "genre": "poetry",
        "words": 60,
        "prompt": "Write a short poem about the first cold morning of autumn.",
    },
    {
        "id": "demo/explain-tides",
        "genre": "explanation",
        "words": 120,
        "prompt": "Explain to a ten-year-old why the sea has tides.",
    },
    {
        "id": "demo/review-cafe",
        "genre": "review",
        "words": 100,
        "prompt": "Write a balanced review of a small neighbourhood cafe with great coffee but slow service.",
    },
]
