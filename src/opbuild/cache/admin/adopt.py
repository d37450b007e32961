"""``opbuild cache sign --trust``: sign, under ``OPBUILD_CACHE_SECRET``, the entries of one kernel_meta that were
written without it (or under another secret), so that setting a secret does not cost a rebuild of every kernel.

A build with a secret refuses an unsigned entry (quarantined, rebuilt, signed: docs/cache.md, "Signed entries"),
because signing entries as they are would sign whatever had been planted among them. This command is that
signing, done only on the user's word (``--trust``: the user vouches that nobody else could write the folder).
Each entry is held exclusively (``locks.try_exclusive``: no build is writing or loading it) and checked by the one
verifier against itself, all but the MAC: its name, ``.info``, ``.json`` and the binary's size, sha256 and ELF
structure. Only then is its ``.json`` rewritten, atomically, with the MAC of those exact bytes; the MAC covers
the binary through the sha256 the ``.json`` records. Refused, and left as they are: damaged entries
(``opbuild cache verify --repair`` quarantines them), entries whose MAC under this very secret does not match
(changed after they were signed: trusting them is not the user's to give), entries in use. Graph manifests that
name a re-signed entry record its old ``.json``'s sha256: they are removed (an index; the next warm start of
their graph writes them again).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ...core import config
from .. import entry as entry_format
from .. import fsio, manifest, signing
from ..layout import CPU_BINARY_SUFFIX, INFO_SUFFIX, JSON_SUFFIX
from ..local import KernelStore, StoredBinary
from ..locks import try_exclusive
from .scan import Entry, scan


@dataclass
class Adoption:
    """What :func:`adopt` did to one kernel_meta."""

    directory: Path
    exists: bool
    key_id: str = signing.UNSIGNED
    signed: list[str] = field(default_factory=list)  # signed now (were unsigned, or signed under another secret)
    resigned_from: dict[str, str] = field(default_factory=dict)  # name -> the other secret's key id
    already: int = 0  # carried a valid MAC under this secret
    refused: list[tuple[str, str]] = field(default_factory=list)  # (name, why), left as they were
    manifests_dropped: int = 0

    def as_dict(self) -> dict:
        return {"directory": str(self.directory), "exists": self.exists, "key_id": self.key_id,
                "signed": self.signed, "resigned_from": self.resigned_from, "already_signed": self.already,
                "refused": [{"name": n, "why": w} for n, w in self.refused],
                "manifests_dropped": self.manifests_dropped}


def adopt(directory: Path, secret: bytes, binary_suffix: str = CPU_BINARY_SUFFIX) -> Adoption:
    """Sign every sound committed entry of ``directory`` that carries no valid MAC under ``secret`` (see the
    module docstring for what is refused)."""
    directory = Path(directory)
    listing = scan(directory, binary_suffix)
    report = Adoption(directory, listing.exists)
    if not listing.exists:
        return report
    store = KernelStore(directory, create=False, binary_suffix=binary_suffix, secret=secret)
    signer = store.signer
    assert signer is not None, "adopt needs a secret"
    report.key_id = signer.key_id
    for entry in listing.committed:
        with try_exclusive(store, entry.name) as held:
            if not held:
                report.refused.append((entry.name, "in use by another process right now (run the command again)"))
                continue
            _adopt_one(store, signer, entry, report)
    if report.signed:
        report.manifests_dropped = manifest.drop_naming(directory, set(report.signed))
    return report


def _adopt_one(store: KernelStore, signer: signing.EntrySigner, entry: Entry, report: Adoption) -> None:
    name = entry.name
    try:
        info = fsio.read_small(str(entry.path(INFO_SUFFIX)), fsio.MAX_METADATA_BYTES)
        raw = fsio.read_small(str(entry.path(JSON_SUFFIX)), fsio.MAX_METADATA_BYTES)
    except OSError as e:  # gone since the scan, or a FIFO/link in a part's place (CorruptFile)
        report.refused.append((name, f"cannot read it: {e.strerror or e}"))
        return
    key = signing.signed_key(raw)
    if key == signer.key_id:
        why = signer.problem(name, info, raw)
        if why is None:
            report.already += 1
        else:
            report.refused.append((name, f"{why}; `opbuild cache verify --repair` quarantines it"))
        return
    plain = raw if key is None else b"{" + raw[signing.FIELD_BYTES:]  # the .json as it was before it was signed
    verdict = entry_format.verify(name, info, plain, StoredBinary(store, str(entry.binary_path())),
                                  binary_suffix=store.binary_suffix)
    if verdict.reason is None and verdict.result is not None and "mac" in verdict.result:
        verdict = entry_format.Verdict("its .json has a malformed MAC field")
    if verdict.reason is not None:
        report.refused.append((name, f"{verdict.reason}; `opbuild cache verify --repair` quarantines it"))
        return
    fsio.atomic_write(entry.path(JSON_SUFFIX), signer.sign(name, info, plain), fsync=config.cache_fsync(),
                      tmp_dir=store.tmp_dir)
    report.signed.append(name)
    if key is not None:
        report.resigned_from[name] = key


__all__ = ["Adoption", "adopt"]
