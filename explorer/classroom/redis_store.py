"""The class store in Redis: what replicas share (the job queue's Redis, $ATTENTION_EXPLORER_REDIS_URL).

Every key of a class carries its code as a hash tag ({CODE}: one cluster slot) and expires with the class
(PEXPIREAT), so Redis itself deletes a class that nobody ended. A join and an answer are one Lua script each:
the class's bound, membership and the question's state are checked where the write happens."""

from __future__ import annotations

import json
from typing import Any

from explorer.classroom import store as s
from explorer.classroom.store import ClassError, Opened, Pulse, Question

PREFIX = "explorer:class:"

JOIN = """
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
if redis.call('SISMEMBER', KEYS[2], ARGV[1]) == 0 and redis.call('SCARD', KEYS[2]) >= tonumber(ARGV[3]) then
  return -2
end
local at = redis.call('HGET', KEYS[1], 'expires')
redis.call('SADD', KEYS[2], ARGV[1])
redis.call('HSET', KEYS[3], ARGV[1], ARGV[2])
redis.call('PEXPIREAT', KEYS[2], at)
redis.call('PEXPIREAT', KEYS[3], at)
return 1
"""
ANSWER = """
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
if redis.call('SISMEMBER', KEYS[2], ARGV[1]) == 0 then return -2 end
if redis.call('HGET', KEYS[1], 'qid') ~= ARGV[2] then return -3 end
local q = redis.call('HGET', KEYS[3], ARGV[2])
if not q or redis.call('HEXISTS', KEYS[4], ARGV[2]) == 1 then return -3 end
local n = #cjson.decode(q)['options']
local choice = tonumber(ARGV[3])
if choice < 0 or choice >= n then return -4 end
redis.call('HSET', KEYS[5], ARGV[1], choice)
redis.call('PEXPIREAT', KEYS[5], redis.call('HGET', KEYS[1], 'expires'))
return 1
"""
GUESS = """
local mine = redis.call('INCR', KEYS[1])
if mine == 1 then redis.call('EXPIRE', KEYS[1], ARGV[1]) end
local every = redis.call('INCR', KEYS[2])
if every == 1 then redis.call('EXPIRE', KEYS[2], ARGV[1]) end
return {mine, every}
"""


def _k(code: str, part: str = "") -> str:
    return f"{PREFIX}{{{code}}}" + (f":{part}" if part else "")


class RedisStore:
    def __init__(self, url: str, ttl_s: float = s.CLASS_TTL_S) -> None:
        import redis

        self.redis: Any = redis.Redis.from_url(url, decode_responses=True)
        self.ttl_s = ttl_s
        self._join = self.redis.register_script(JOIN)
        self._answer = self.redis.register_script(ANSWER)
        self._guess = self.redis.register_script(GUESS)

    def _teacher(self, code: str, key: str) -> None:
        stored = self.redis.hget(_k(code), "key_hash")
        if stored is None:
            raise ClassError(s.NO_CLASS)
        if not s.key_matches(stored, key):
            raise ClassError(s.NOT_TEACHER)

    def _expire(self, code: str, *parts: str) -> None:
        at = self.redis.hget(_k(code), "expires")
        if at is not None:
            pipe = self.redis.pipeline()
            for part in parts:
                pipe.pexpireat(_k(code, part), int(at))
            pipe.execute()

    # ------------------------------------------------------------------------------------ the teacher

    def create(self) -> Opened:
        key = s.new_key()
        sec, usec = self.redis.time()
        at_ms = int(sec) * 1000 + int(usec) // 1000 + int(self.ttl_s * 1000)
        fields = {"key_hash": s.key_hash(key), "expires": at_ms, "version": 0, "view": ""}
        while True:
            code = s.new_code()
            if self.redis.hsetnx(_k(code), "key_hash", fields["key_hash"]):
                break
        pipe = self.redis.pipeline()
        pipe.hset(_k(code), mapping=fields)
        pipe.pexpireat(_k(code), at_ms)
        pipe.execute()
        return Opened(code, key)

    def drives(self, code: str, key: str) -> bool:
        """`key` is the live class's teacher key (a teacher's tab reloaded: it drives again)."""
        return s.key_matches(self.redis.hget(_k(code), "key_hash"), key)

    def publish(self, code: str, key: str, view: str) -> int:
        view = s.check_view(view)
        self._teacher(code, key)
        version, was = self.redis.hmget(_k(code), "version", "view")
        if was == view:
            return int(version)
        pipe = self.redis.pipeline()  # one transaction: a reader sees the new view with its new version
        pipe.hset(_k(code), "view", view)
        pipe.hincrby(_k(code), "version", 1)
        return int(pipe.execute()[1])

    def ask(self, code: str, key: str, question: Question | None) -> None:
        q = None if question is None else s.check_question(question)
        self._teacher(code, key)
        if q is None:
            self.redis.hdel(_k(code), "qid")
            return
        if not self.redis.hexists(_k(code, "q"), q.qid):
            n = self.redis.hlen(_k(code, "q"))
            if n >= s.MAX_QUESTIONS:
                raise ClassError(s.TOO_MANY_QUESTIONS, most=s.MAX_QUESTIONS)
            text = json.dumps({"n": n, "prompt": q.prompt, "options": list(q.options)})
            self.redis.hsetnx(_k(code, "q"), q.qid, text)
            self._expire(code, "q")
        self.redis.hset(_k(code), "qid", q.qid)

    def reveal(self, code: str, key: str, qid: str, truth: int) -> None:
        self._teacher(code, key)
        q = self._question(code, qid)
        if q is None:
            raise ClassError(s.ENDED_QUESTION)
        if not 0 <= int(truth) < len(q.options):
            raise ClassError(s.NOT_A_CHOICE)
        self.redis.hset(_k(code, "truth"), qid, int(truth))
        self._expire(code, "truth")

    def export(self, code: str, key: str) -> list[tuple[Question, tuple[int, ...]]]:
        self._teacher(code, key)
        raw = self.redis.hgetall(_k(code, "q"))
        order = sorted(raw, key=lambda qid: json.loads(raw[qid])["n"])
        return [(q, self._counts(code, q)) for q in (self._question(code, qid) for qid in order) if q]

    def end(self, code: str, key: str) -> None:
        self._teacher(code, key)
        qids = self.redis.hkeys(_k(code, "q"))
        parts = ["", "students", "nicknames", "q", "truth", *(f"a:{qid}" for qid in qids)]
        self.redis.delete(*(_k(code, p) for p in parts))

    # ------------------------------------------------------------------------------------ the students

    def join(self, code: str, who: str, nickname: str = "", student: str = "") -> str:
        keys = [f"{PREFIX}{{guess}}:{who}", f"{PREFIX}{{guess}}:*"]  # one slot: the script reads both
        mine, every = self.redis.get(keys[0]), self.redis.get(keys[1])
        if int(mine or 0) >= s.GUESSES or int(every or 0) >= s.ALL_GUESSES:
            raise ClassError(s.TOO_MANY_GUESSES)
        student = s.id_to_join(student)
        got = self._join(
            keys=[_k(code), _k(code, "students"), _k(code, "nicknames")],
            args=[student, s.nickname(nickname), s.MAX_STUDENTS],
        )
        if got == -1:
            self._guess(keys=keys, args=[s.GUESS_WINDOW_S])
            raise ClassError(s.NO_CLASS)
        if got == -2:
            raise ClassError(s.FULL, most=s.MAX_STUDENTS)
        return student

    def rejoin(self, code: str, student: str) -> bool:
        """True when `student` is a student of the live class `code` (a reload, or a replica's death: the
        same student, their answers kept)."""
        return bool(self.redis.sismember(_k(code, "students"), student))

    def pulse(self, code: str) -> Pulse | None:
        pipe = self.redis.pipeline(transaction=False)
        pipe.hmget(_k(code), "version", "view", "qid")
        pipe.scard(_k(code, "students"))
        (version, view, qid), n = pipe.execute()
        if version is None:
            return None
        q = None if qid is None else self._question(code, qid)
        answered = 0 if q is None else int(self.redis.hlen(_k(code, f"a:{qid}")))
        return Pulse(int(version), view or "", q, answered, int(n))

    def answer(self, code: str, student: str, qid: str, choice: int) -> None:
        got = self._answer(
            keys=[_k(code), _k(code, "students"), _k(code, "q"), _k(code, "truth"), _k(code, f"a:{qid}")],
            args=[student, qid, int(choice)],
        )
        if got == -1:
            raise ClassError(s.NO_CLASS)
        if got == -2:
            raise ClassError(s.JOIN_FIRST)
        if got == -3:
            raise ClassError(s.ENDED_QUESTION)
        if got == -4:
            raise ClassError(s.NOT_A_CHOICE)

    def mine(self, code: str, student: str, qid: str) -> int | None:
        got = self.redis.hget(_k(code, f"a:{qid}"), student)
        return None if got is None else int(got)

    def counts(self, code: str, qid: str) -> tuple[int, ...]:
        q = self._question(code, qid)
        return () if q is None else self._counts(code, q)

    # ------------------------------------------------------------------------------------------ keeping

    def sweep(self) -> int:
        return 0  # every key of a class expires with it (PEXPIREAT): Redis deletes them

    def _question(self, code: str, qid: str) -> Question | None:
        pipe = self.redis.pipeline(transaction=False)
        pipe.hget(_k(code, "q"), qid)
        pipe.hget(_k(code, "truth"), qid)
        raw, truth = pipe.execute()
        if raw is None:
            return None
        d = json.loads(raw)
        return Question(qid, d["prompt"], tuple(d["options"]), None if truth is None else int(truth))

    def _counts(self, code: str, q: Question) -> tuple[int, ...]:
        got = [0] * len(q.options)
        for v in self.redis.hvals(_k(code, f"a:{q.qid}")):
            got[int(v)] += 1
        return tuple(got)
