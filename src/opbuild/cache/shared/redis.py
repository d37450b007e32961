"""``redis://host:port/db``: the shared tier on a Redis server, through the ``redis`` client package.

Keys (``opbuild:2:`` is a layout version, so a future format never reads an old one; ``<key id>`` the
namespace of one secret, :func:`.entry.key_id`)::

    opbuild:2:<key id>:entry:<name>   the entry blob (entry.py format), SET with PX = OPBUILD_REMOTE_TTL if set
    opbuild:2:<key id>:lease:<name>   the build lease: SET NX PX <lease ttl> holding the owner, renewed with PEXPIRE
    opbuild:2:keyids                  the set of key ids that have published entries (SADD on publish)

Renew and release compare the owner and act in one Lua script, so a process never extends or deletes a lease
that expired and was taken by someone else. Redis evicting keys (``maxmemory``) only causes rebuilds: an
evicted entry is a miss, an evicted lease a possible duplicate build.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import wraps

from ...core.config import redact_url as redact
from .backend import MAX_BLOB_BYTES, UNSIGNED, RemoteBackend, RemoteError, check_namespace

PREFIX = "opbuild:2:"
KEYIDS = PREFIX + "keyids"


def entry_prefix(namespace: str) -> str:
    """The key prefix of the entries of ``namespace``."""
    return f"{PREFIX}{namespace}:entry:"


def lease_prefix(namespace: str) -> str:
    """The key prefix of the build leases of ``namespace``."""
    return f"{PREFIX}{namespace}:lease:"


_RENEW = """
if redis.call('get', KEYS[1]) == ARGV[1] then
  return redis.call('pexpire', KEYS[1], ARGV[2])
end
return 0
"""
# The blobs of KEYS whose size is at most ARGV[1], as long as this reply stays within ARGV[2] bytes: each key
# gets false (absent, or not a string), its size (not sent: too large, or over this reply's budget) or its
# blob. Sizes are checked on the server, so a planted 400 MiB blob is never sent; the client asks again for
# the blobs left over the budget, so no reply holds much more than one blob's bound.
_GET_BOUNDED = """
local limit, budget, sent, out = tonumber(ARGV[1]), tonumber(ARGV[2]), 0, {}
for i, key in ipairs(KEYS) do
  local n = -1
  if redis.call('type', key)['ok'] == 'string' then n = redis.call('strlen', key) end
  if n < 0 then
    out[i] = false
  elseif n > limit or (sent > 0 and sent + n > budget) then
    out[i] = n
  else
    out[i] = redis.call('get', key)
    sent = sent + n
  end
end
return out
"""
_RELEASE = """
if redis.call('get', KEYS[1]) == ARGV[1] then
  return redis.call('del', KEYS[1])
end
return 0
"""


def _remote_errors(method):
    """Turn the client's errors (connection refused, timeouts, OOM under maxmemory, ...) into RemoteError."""

    @wraps(method)
    def wrapper(self, *args, **kwargs):
        try:
            return method(self, *args, **kwargs)
        except (self._redis.RedisError, OSError) as e:
            raise RemoteError(f"{self.url}: {type(e).__name__}: {e}") from e

    return wrapper


class RedisBackend(RemoteBackend):
    """Entries and leases as Redis string keys. ``timeout`` is the client's connect and socket timeout."""

    def __init__(self, url: str, ttl: float = 0.0, timeout: float = 2.0, namespace: str = UNSIGNED):
        try:
            import redis
        except ImportError:
            raise RemoteError(f"{redact(url)}: the redis client package is not installed "
                              f"(pip install 'opbuild[remote]')") from None
        self._redis = redis
        self.url = redact(url)
        self.ttl_ms = int(ttl * 1000) if ttl else None
        self.namespace = check_namespace(namespace)
        self._entry, self._lease = entry_prefix(namespace), lease_prefix(namespace)
        # Connecting is lazy: constructing the client never blocks.
        self._r = redis.Redis.from_url(url, socket_timeout=timeout, socket_connect_timeout=timeout)
        self._renew = self._r.register_script(_RENEW)
        self._release = self._r.register_script(_RELEASE)
        self._get_bounded = self._r.register_script(_GET_BOUNDED)
        self.max_blob = MAX_BLOB_BYTES

    def cancel(self) -> None:
        """Close every connection, in use or idle: a call still reading a reply fails at once (ConnectionError,
        raised as RemoteError in its thread) instead of downloading on after its timeout."""
        try:
            self._r.connection_pool.disconnect(inuse_connections=True)
        except (self._redis.RedisError, OSError):
            pass  # already closed

    def get(self, name: str) -> bytes | None:
        return self.get_many([name]).get(name)

    @_remote_errors
    def get_many(self, names: Sequence[str]) -> dict[str, bytes]:
        """The blobs of ``names`` of at most :data:`.backend.MAX_BLOB_BYTES` each (larger ones are absent:
        never sent), fetched in replies of about that size at most."""
        out: dict[str, bytes] = {}
        todo = list(names)
        while todo:
            replies = self._get_bounded(keys=[self._entry + n for n in todo], args=[self.max_blob, self.max_blob])
            later = []
            for name, value in zip(todo, replies):
                if isinstance(value, bytes):
                    out[name] = value
                elif isinstance(value, int) and value <= self.max_blob:
                    later.append(name)  # over this reply's budget: in the next one
            if len(later) == len(todo):  # cannot happen (a reply always carries its first blob); never loop
                break
            todo = later
        return out

    def put(self, name: str, blob: bytes) -> None:
        self.put_many([(name, blob)])

    @_remote_errors
    def put_many(self, items: Iterable[tuple[str, bytes]]) -> None:
        pipe = self._r.pipeline(transaction=False)
        for name, blob in items:
            pipe.set(self._entry + name, blob, px=self.ttl_ms)
        pipe.sadd(KEYIDS, self.namespace)
        pipe.execute()

    @_remote_errors
    def namespaces(self) -> list[str]:
        return sorted(k.decode() if isinstance(k, bytes) else str(k) for k in self._r.smembers(KEYIDS))

    @_remote_errors
    def count_in(self, namespace: str, names: Sequence[str]) -> int:
        if not names:
            return 0
        prefix = entry_prefix(check_namespace(namespace))
        return int(self._r.exists(*[prefix + n for n in names]))

    @_remote_errors
    def acquire(self, name: str, owner: str, ttl: float) -> str:
        return self.acquire_many([name], owner, ttl)[name]

    @_remote_errors
    def acquire_many(self, names: Sequence[str], owner: str, ttl: float) -> dict[str, str]:
        """SET NX PX then GET per name, all in one round trip. A lease that expired between the two reads
        back as held by nobody (""): the caller simply tries again later."""
        if not names:
            return {}
        pipe = self._r.pipeline(transaction=False)
        for name in names:
            pipe.set(self._lease + name, owner, nx=True, px=max(1, int(ttl * 1000)))
            pipe.get(self._lease + name)
        replies = pipe.execute()
        out = {}
        for i, name in enumerate(names):
            holder = replies[2 * i + 1]
            out[name] = holder.decode() if holder is not None else ""
        return out

    @_remote_errors
    def renew(self, name: str, owner: str, ttl: float) -> bool:
        return bool(self._renew(keys=[self._lease + name], args=[owner, max(1, int(ttl * 1000))]))

    @_remote_errors
    def release(self, name: str, owner: str) -> None:
        self._release(keys=[self._lease + name], args=[owner])

    @_remote_errors
    def stats(self) -> dict:
        keys = list(self._r.scan_iter(match=self._entry + "*", count=1000))
        size = 0
        for i in range(0, len(keys), 1000):  # sizes in pipelined chunks: one round trip per 1000 entries
            pipe = self._r.pipeline(transaction=False)
            for key in keys[i:i + 1000]:
                pipe.strlen(key)
            size += sum(pipe.execute())
        entries = len(keys)
        leases = sum(1 for _ in self._r.scan_iter(match=self._lease + "*", count=1000))
        info = self._r.info("memory")
        evicted = self._r.info("stats").get("evicted_keys")
        return {"url": self.url, "backend": "redis", "key_id": self.namespace, "entries": entries, "bytes": size,
                "leases": leases,
                "ttl": self.ttl_ms / 1000 if self.ttl_ms else None, "used_memory": info.get("used_memory"),
                "maxmemory": info.get("maxmemory"), "maxmemory_policy": info.get("maxmemory_policy"),
                "evicted_keys": evicted}

    def close(self) -> None:
        self._r.close()
