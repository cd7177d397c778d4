"""WritingBench: general writing over 6 domains and 100 subdomains, judged per query-specific criterion."""
