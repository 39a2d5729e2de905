"""Row encodings: the chain digests, score packs and columns, state blobs and deltas."""
