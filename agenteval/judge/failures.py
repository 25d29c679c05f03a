"""Why a judgment failed: the internal exceptions, their one-line causes and stable codes.

Each failed judgment ends as a ``JudgeFailure`` whose ``code`` says what failed, so a report can
group causes without parsing text:

    invalid_verdict   replies arrived but none validated after the re-asks (deterministic:
                      cached as a failure and not paid again unless ``retry_failed``)
    truncated         the reply was cut at ``max_tokens`` before its verdict was complete
                      (deterministic, cached like an invalid verdict)
    timeout, connection, http_429, http_5xx, http_4xx, broken_body, empty_choices
                      transport faults that outlived their retries (retried on the next run)
    oversized         the reply was larger than :data:`agenteval.judge.transport.MAX_REPLY_BYTES`
                      (not read further, not retried; retried on the next run)
    item_mismatch     the verdict names another item than the one asked about (a server or
                      proxy that mixed up replies; not cached, retried on the next run)
    deadline          not finished before the run deadline (retried on the next run)
    fail_fast         not sent: judgments kept failing at the transport with no success for a
                      while (the server is down), so the run stopped sending
    budget            not sent: ``max_calls`` reached
    other             anything else (the cause names the exception)

An authentication failure (HTTP 401/403) is not a per-item failure: it stops the run with one
``JudgeError`` naming the endpoint and where the key came from.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from pydantic import ValidationError

TRANSIENT = frozenset({"timeout", "connection", "http_429", "http_5xx", "broken_body",
                       "empty_choices", "oversized", "item_mismatch", "deadline", "fail_fast",
                       "budget"})
"""Codes of failures a later run may not repeat: never cached."""

CODES = ("invalid_verdict", "truncated", "timeout", "connection", "http_429", "http_5xx", "http_4xx",
         "broken_body", "empty_choices", "oversized", "item_mismatch", "deadline", "fail_fast",
         "budget", "other")


class BudgetExhausted(Exception):
    """Raised before a request that would exceed ``max_calls``."""


class DeadlineReached(Exception):
    """Raised before a request (or a backoff) that would end past the run deadline."""


class FailFast(Exception):
    """Raised before a request once the run stopped sending (the server looks down)."""

    def __init__(self, code: str, streak: int, window: float) -> None:
        super().__init__(f"not sent: {streak} judgments in a row failed at the transport (last: "
                         f"{code}) with no successful request for {window:g} s, so the run "
                         "stopped sending")
        self.code = code


class AuthFailed(Exception):
    """HTTP 401/403: the endpoint refused the key; the whole run stops."""

    def __init__(self, status: int, detail: str) -> None:
        super().__init__(f"HTTP {status}: {detail}")
        self.status = status
        self.detail = detail


class InvalidVerdict(Exception):
    """No valid verdict after the allowed re-asks (the last validation error is the message)."""


class ReplyCut(Exception):
    """The reply stopped at the token limit before its verdict fields were complete."""

    def __init__(self, max_tokens: int | None) -> None:
        limit = f"max_tokens={max_tokens}" if max_tokens else "the server's max_tokens"
        super().__init__(f"reply cut at the token limit ({limit}) before its verdict was "
                         "complete; not re-asked, since the same limit would cut it again")


class ReplyTooLarge(Exception):
    """A reply larger than the cap: not read further, so it cannot cost memory."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"reply larger than {limit:,} bytes; not read further")


class ItemMismatch(Exception):
    """The verdict echoes another item's identity: the reply is not for this request.

    Deliberately not a ``ValueError``: a reply meant for another request is not re-asked.
    """

    def __init__(self, expected: str, got: object) -> None:
        super().__init__(f"the verdict names item {str(got)[:40]!r}, not {expected!r}: the "
                         "server answered with another request's reply")


class EmptyChoices(Exception):
    """An HTTP 200 whose completion has no ``choices``: retried like a broken body."""

    def __init__(self) -> None:
        super().__init__("HTTP 200 with an empty 'choices' list (no completion in the reply)")


class TransportError(Exception):
    """A request that failed at the HTTP level after its retries (the fault is chained).

    Deliberately not a ``ValueError``: a reply that never arrived is never re-asked.
    """

    def __init__(self, retries: int, code: str) -> None:
        super().__init__(f"request failed after {retries} retr{'y' if retries == 1 else 'ies'}")
        self.retries = retries
        self.code = code


JUDGE_FAILURES: tuple[type[BaseException], ...] = (
    TransportError, BudgetExhausted, DeadlineReached, FailFast, AuthFailed, InvalidVerdict,
    ReplyCut, ItemMismatch)
"""What a judgment may fail with (the judge's failures); anything else is a bug that raises."""


@dataclass(frozen=True)
class Failed:
    """A judgment's failure before it is labelled for each item that shares it."""

    kind: str
    text: str
    code: str
    cached: bool = False


def describe(exc: BaseException, reasks: int) -> tuple[str, str]:
    """(code, one-line cause): the innermost meaningful error, with the HTTP status if any.

    ``reasks`` is the number of re-asks actually sent for this judgment.
    """
    transport = find(exc, TransportError)
    if transport is not None:
        fault = transport.__cause__ or transport
        tries = transport.retries  # type: ignore[attr-defined]
        code = transport.code  # type: ignore[attr-defined]
        after = f" (after {tries} retr{'y' if tries == 1 else 'ies'})" if tries else ""
        status = getattr(fault, "status_code", None)
        if status is not None:
            return code, f"HTTP {status}: {short(str(fault).removeprefix(f'HTTP {status}: '))}{after}"
        what = {"timeout": "request timed out", "connection": "connection error",
                "broken_body": "response body is not a valid completion",
                "empty_choices": "empty completion",
                "oversized": "reply too large"}.get(code)
        if what is not None:
            return code, f"{what} ({type(fault).__name__}): {short(fault)}{after}"
        return code, f"{type(fault).__name__}: {short(fault)}{after}"
    for kind, code in ((DeadlineReached, "deadline"), (FailFast, "fail_fast"),
                       (ReplyCut, "truncated"), (ItemMismatch, "item_mismatch")):
        found = find(exc, kind)
        if found is not None:
            return code, short(found)
    if isinstance(exc, InvalidVerdict) or find(exc, ValidationError) is not None \
            or find(exc, json.JSONDecodeError) is not None:
        inner = exc.__cause__ or exc
        return "invalid_verdict", (f"invalid verdict after {reasks} re-ask(s) "
                                   f"({type(inner).__name__}): {short(inner)}")
    return "other", f"{type(exc).__name__}: {short(exc)}"


def find(exc: BaseException | None, kind: type[BaseException]) -> BaseException | None:
    """The first exception of ``kind`` along the cause/context chain."""
    seen = set()
    while exc is not None and id(exc) not in seen:
        if isinstance(exc, kind):
            return exc
        seen.add(id(exc))
        exc = exc.__cause__ or exc.__context__
    return None


def short(exc: BaseException | str, limit: int = 300) -> str:
    """One line, at most ``limit`` characters (cut at a word boundary, marked with '...')."""
    text = re.sub(r"\s+", " ", str(exc)).strip()
    if len(text) <= limit:
        return text
    cut = text[:limit].rsplit(" ", 1)[0]
    return (cut if len(cut) > limit // 2 else text[:limit]) + "..."
