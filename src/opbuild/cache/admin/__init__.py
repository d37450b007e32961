"""Cache maintenance, what ``opbuild cache ...`` runs: :mod:`.scan` (list a kernel_meta), :mod:`.verify`
(check and repair), :mod:`.evict` (prune, clear, and the OPBUILD_CACHE_MAX_SIZE bound the warm path applies
through cache/usage.py), :mod:`.transfer` (export/import archives) and :mod:`.explain` (why a descriptor
missed). Admin modules import the warm path (cache/*.py); the warm path imports only :mod:`.evict`,
:mod:`.scan` and :mod:`.explain`, for the size bound and OPBUILD_EXPLAIN_MISSES.
"""
