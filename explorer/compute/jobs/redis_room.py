"""Big jobs and big outcomes in Redis (explorer.compute.jobs.rq_queue).

Redis's memory: past its maxmemory, Redis drops keys that expire (the results, least recently used first),
and a big job's arguments have no expiry until its job ended or nobody waits for it (`expire_payloads`): a
file that waits its turn in a busy class is the least recently used key there is, and dropped, it failed its
visitor. Every write fails once Redis is full of what it may not drop: a place's look, a visitor's use, a
class's answer. So a job whose arguments are large (an uploaded layer file, 43 MB: BIG_BYTES or more) first
takes room (`RedisJobs.admit`, the script ADMIT): the big jobs in flight (queued, running, or done and not yet
fetched) hold at most ROOM_SHARE of Redis's maxmemory together, one at least; the others wait in line, first
come first in, their pages saying how many are ahead. A place that stops looking leaves the line, and a job's
room ends ROOM_TTL_S after its last place looked (its replica died). Past all that, a write Redis refuses
reaches the visitor as "too busy" (jobs.FULL), never as an error. A big job's large arguments travel as keys
of their own (Payload), written and read as they are: RQ would compress them in the web process (1.4 s of
CPU for a 43 MB file, beside every page it draws) and write them again when the job ends. Its outcome is read
from Redis once per web process (`RedisJobs.outcome`: twenty readers at once would each have a copy in
Redis's output buffers), and its keys leave Redis as soon as its last place has it. Any job's large outcome
(an induction run's attentions, from a few small arguments) lies raw under a key of its own too, not in RQ's
base64 (`keep_outcome`).
"""

from __future__ import annotations

import contextlib
import functools
from dataclasses import dataclass
from typing import Any

from rq.serializers import DefaultSerializer

from explorer.compute import jobs

PREFIX = "explorer:"  # every key of the explorer's in Redis (rq_queue's too)
PLACE_TTL_S = 20.0  # a place that has not looked for this long has left
# Big jobs (module doc): arguments of at least BIG_BYTES take room first; their room together is at most
# ROOM_SHARE of Redis's maxmemory (ROOM_DEFAULT when Redis has no bound or does not say); a job's room is its
# arguments' bytes times ROOM_PER_BYTE: a 43.3 MB layer file takes Redis to 203 MB at its peak, 3 MB of bytes
# returned as large to 13.6 MB (the arguments; the result, in base64; the buffers of the connections that
# write and read each). Within the 256 MB scripts/serve.sh gives Redis by default, one such file is read at a time.
BIG_BYTES = 1_000_000
PIECE_BYTES = 256 * 1024  # a large argument goes to Redis in commands of at most this (stash)
ROOM_SHARE = 0.6
ROOM_DEFAULT = 256 * 2**20
ROOM_PER_BYTE = 5.0
ROOM_TTL_S = PLACE_TTL_S
ROOM = PREFIX + "room"  # sorted set: job id -> when its room ends (ms)
ROOM_BYTES = PREFIX + "room:bytes"  # hash: job id -> its room (bytes)
LINE = PREFIX + "room:line"  # sorted set: place -> when it came (ms): the line for room
SEEN = PREFIX + "room:seen"  # sorted set: place -> when it last looked (ms)
PAYLOADS = PREFIX + "payloads:"  # + job id: set of the keys of its large arguments (stash)
OUTCOME = PREFIX + "outcome:"  # + job id: its large outcome, pickled (keep_outcome)
# Room for a big job (KEYS: ROOM, ROOM_BYTES, LINE, SEEN; ARGV: now ms, job id, place, bytes, budget, room
# ms, gone ms, PAYLOADS, seconds): -1 when the job has room (now, or taken by another of its places), else how
# many are ahead (the big jobs in flight and the places before this one in the line). A room that ended
# unfreed (its places all left or their replica died) lets go of its job's arguments (expire_payloads).
ADMIT = """
local now = tonumber(ARGV[1])
for _, id in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now)) do
  redis.call('HDEL', KEYS[2], id)
  for _, key in ipairs(redis.call('SMEMBERS', ARGV[8] .. id)) do redis.call('EXPIRE', key, ARGV[9]) end
  redis.call('EXPIRE', ARGV[8] .. id, ARGV[9])
end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
for _, t in ipairs(redis.call('ZRANGEBYSCORE', KEYS[4], '-inf', now - tonumber(ARGV[7]))) do
  redis.call('ZREM', KEYS[3], t)
end
redis.call('ZREMRANGEBYSCORE', KEYS[4], '-inf', now - tonumber(ARGV[7]))
if redis.call('ZSCORE', KEYS[1], ARGV[2]) then
  redis.call('ZREM', KEYS[3], ARGV[3])
  redis.call('ZREM', KEYS[4], ARGV[3])
  return -1
end
redis.call('ZADD', KEYS[3], 'NX', now, ARGV[3])
redis.call('ZADD', KEYS[4], now, ARGV[3])
local ahead = redis.call('ZRANK', KEYS[3], ARGV[3])
if ahead == 0 then
  local used = 0
  for _, b in ipairs(redis.call('HVALS', KEYS[2])) do used = used + tonumber(b) end
  if used == 0 or used + tonumber(ARGV[4]) <= tonumber(ARGV[5]) then
    redis.call('ZREM', KEYS[3], ARGV[3])
    redis.call('ZREM', KEYS[4], ARGV[3])
    redis.call('ZADD', KEYS[1], now + tonumber(ARGV[6]), ARGV[2])
    redis.call('HSET', KEYS[2], ARGV[2], ARGV[4])
    return -1
  end
end
return ahead + redis.call('ZCARD', KEYS[1])
"""


@dataclass(frozen=True)
class Payload:
    """A big job's argument kept in Redis under `key` (module doc): the job carries this in its place."""

    key: str
    text: bool  # the argument was a str (kept as its UTF-8 bytes)


def _full() -> Any:
    """What a write Redis refuses past its maxmemory raises (redis.exceptions.OutOfMemoryError)."""
    import redis

    return redis.exceptions.OutOfMemoryError


def large(a: Any) -> bool:
    return isinstance(a, (bytes, str)) and len(a) >= BIG_BYTES


def room_of(spec: jobs.Spec) -> int:
    """The room a job takes in Redis before it is queued (module doc): 0 for a job of small arguments."""
    size = sum(len(a) for a in spec.args if isinstance(a, (bytes, str)))
    return int(size * ROOM_PER_BYTE) if size >= BIG_BYTES else 0


def peek(r: Any, job_id: str) -> tuple[str | None, str, bytes | None]:
    """(status, queue, meta as stored) of RQ's job `job_id`, or (None, "", None) when there is none. RQ's
    Job.fetch reads the whole job, its arguments too (an uploaded file's 33 MB, for every look of every
    place 4 times a second); this reads the three fields a place looks at."""
    status, origin, meta = r.hmget(f"rq:job:{job_id}", "status", "origin", "meta")
    return (status.decode() if status else None), (origin.decode() if origin else ""), meta


def budget_of(r: Any) -> int:
    """Bytes the big jobs in flight may hold together: ROOM_SHARE of Redis's maxmemory (module doc)."""
    try:
        bound = int(r.config_get("maxmemory").get("maxmemory", 0))
    except Exception:  # noqa: BLE001 - a Redis that does not say (CONFIG refused): the default
        bound = 0
    return int(ROOM_SHARE * bound) if bound else ROOM_DEFAULT


def stash(r: Any, job_id: str, args: tuple[Any, ...]) -> tuple[Any, ...]:
    """A job's arguments as it goes to the queue: each large one written to a key of its own, without expiry
    until `expire_payloads`, listed under PAYLOADS + job id, and carried as its Payload (module doc)."""
    out = tuple(
        Payload(f"{PREFIX}payload:{job_id}:{i}", isinstance(a, str)) if large(a) else a
        for i, a in enumerate(args)
    )
    kept = [(p.key, a) for p, a in zip(out, args, strict=True) if isinstance(p, Payload)]
    if not kept:
        return out
    pipe = r.pipeline()
    for key, a in kept:
        raw = memoryview(a.encode() if isinstance(a, str) else a)
        # in pieces: Redis keeps a connection's query buffer as large as its largest command for seconds after
        # it, and several visitors' connections each holding a whole file's worth took Redis past its
        # maxmemory (dropping a class's keys)
        for at in range(0, len(raw), PIECE_BYTES):
            if at:
                pipe.append(key, raw[at : at + PIECE_BYTES])
            else:
                pipe.set(key, raw[:PIECE_BYTES])
    pipe.sadd(PAYLOADS + job_id, *(key for key, _ in kept))
    pipe.execute()
    return out


def expire_payloads(r: Any, job_id: str, seconds: int) -> None:
    """A big job's large arguments leave Redis `seconds` from now (its job ended, failed, or has nobody
    waiting): until then they have no expiry, so Redis never drops them for room (module doc)."""
    pipe = r.pipeline()
    for key in payload_keys(r, job_id):
        pipe.expire(key, seconds)
    pipe.execute()


def job_keys(r: Any, job_id: str) -> list[str]:
    """Every key of a job and its results in Redis: RQ's and the explorer's (deleted once its last place has
    its outcome)."""
    return [f"rq:job:{job_id}", f"rq:results:{job_id}", OUTCOME + job_id, *payload_keys(r, job_id)]


def payload_keys(r: Any, job_id: str) -> list[str]:
    """The keys of a big job's large arguments (Payload), and of their list."""
    listed = PAYLOADS + job_id
    return [listed, *(k.decode() for k in r.smembers(listed))]


def keep_outcome(r: Any, job_id: str, outcome: Any, seconds: int | None) -> Any:
    """What a worker returns to RQ as a job's outcome: the outcome, or, when it serializes (Pickle4) to BIG_BYTES
    or more, a note that it lies raw under OUTCOME + job id for `seconds`. RQ keeps a result in base64, a
    third larger in Redis, which every place decodes inside its interpreter lock: an induction run's 10.8 MB
    cost a web process 66 ms of CPU that way and 14 ms raw (`python -m benchmarks redis_results`).
    `seconds` None (a big job's outcome, part of its room): no expiry, as its arguments, and listed with them,
    so Redis never drops it before its places have it, and it leaves with them (module doc)."""
    raw = Pickle4.dumps(outcome)
    if len(raw) < BIG_BYTES:
        return outcome
    with contextlib.suppress(_full()):  # no room: RQ's own way (or its refusal)
        pipe = r.pipeline()
        pipe.set(OUTCOME + job_id, raw, ex=seconds)
        if seconds is None:
            pipe.sadd(PAYLOADS + job_id, OUTCOME + job_id)
        pipe.execute()
        return ("kept",)
    return outcome


def outcome_of(r: Any, job_id: str, big: bool = False) -> Any:
    """A job's outcome, as its worker returned it to RQ or kept it (keep_outcome); None when Redis has it no
    more. A big job's is looked for as kept first: it outlives RQ's keys. Any other job's is RQ's result
    first, one round trip for the small outcomes most jobs have. RQ's Job reads only the result, not the
    arguments (peek says why)."""
    from rq.job import Job

    returned = None if big else Job(job_id, connection=r).return_value()
    if returned is not None and returned[0] != "kept":
        return returned
    raw = r.get(OUTCOME + job_id)
    return None if raw is None else Pickle4.loads(raw)  # (written by a worker, as RQ's results are)


class Pickle4:
    """RQ's own serializer, its dumps at protocol 4 rather than RQ's 5, for what a worker writes (a result,
    progress, a large outcome's key): an array read back from protocol 4 lies on a bytes object, which
    explorer.cache counts as read-only once frozen, so the sessions of a class that opened one file share its
    arrays and digest them once. From protocol 5 it lies on a bytearray: never shared, and digested again at
    every rerun (32 MB for the largest file). Only the explorer's workers write what this reads."""

    dumps = staticmethod(functools.partial(DefaultSerializer.dumps.func, protocol=4))
    loads = staticmethod(DefaultSerializer.loads)
