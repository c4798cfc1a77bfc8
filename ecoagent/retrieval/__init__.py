"""Embedding and retrieval: embedders with their vector cache; lexical, dense and cross-encoder rankers."""
