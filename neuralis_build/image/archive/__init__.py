"""Package tarballs as hostile input: the gzip and tar readers, the streaming extractor, the store of extracted
entries, integrity.
"""
