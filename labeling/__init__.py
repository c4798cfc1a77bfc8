"""EcoAgent-Real: real user queries mapped to catalog tools by retrieval plus verification."""
