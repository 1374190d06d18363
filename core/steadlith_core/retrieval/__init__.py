"""Retrieval evaluation: question sets, retrievers and the metrics that score them."""
