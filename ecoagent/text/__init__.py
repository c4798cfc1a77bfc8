"""Text several stages share: words and language, redaction, tokens, near-duplicates, splits, Markdown tables."""
