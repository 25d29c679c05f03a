"""Request templates per verdict type and output mode, built once per judge; reply parsing.

instructor is the source of truth for the typed-output parts of every structured mode: once per
verdict type per judge, its OpenAI mode handler prepares a request (its ``response_format`` or
``tools``/``tool_choice`` fields and the format instructions it adds to the messages), and the
:class:`Template` keeps the result; each reply is then parsed by the same handler's response
parser, and an invalid reply is re-asked with its own re-ask messages. What instructor costs per
request is its request preparation (150 µs for ``json_schema`` to 740 µs for ``tools`` per call,
measured; a schema generation each time), so that runs once; its parse costs 8-13 µs per reply.

What is ours, on top: the transport (see :mod:`agenteval.judge.transport`); salvage of replies
the server cut at the token limit (``finish_reason`` "length"; :mod:`agenteval.judge.salvage`),
which instructor rejects outright; a ``tools`` reply whose JSON came as content; and the
plain-text mode, which instructor does not have. The answer being judged must never set its own
verdict: a reply that is not the verdict itself is invalid (re-asked, then a judge error), and in
the two modes that search a text for the verdict, only the reply's LAST block counts and never one
that also occurs in the judged data:

    json_schema   response_format json_schema (llama.cpp, vLLM, OpenAI enforce it by grammar)
    tools         one forced function call whose parameters are the schema
    tools_strict  the same with ``strict: true``
    json          response_format json_object, the schema in the system message
    md_json       the schema in the system message, the reply in a ```json block
    plain         ``use_structured_output=False``: a fenced block between custom clauses (ours)
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ValidationError

from agenteval.errors import ConfigError
from agenteval.judge import prompts
from agenteval.judge.failures import ItemMismatch
from agenteval.judge.salvage import CUT_MARK, salvage_json
from agenteval.judge.verdicts import ITEM_PLACEHOLDER, echo_model

PLAIN = "plain"
MODES = ("json_schema", "tools", "tools_strict", "json", "md_json")
_ALIASES = {"json_schema_mode": "json_schema", "tool_call": "tools", "json_mode": "json",
            "markdown_json_mode": "md_json"}
_INSTRUCTOR_MODE = {"json_schema": "JSON_SCHEMA", "tools": "TOOLS", "tools_strict": "TOOLS",
                    "json": "JSON", "md_json": "MD_JSON"}
"""instructor's mode per mode name (``tools_strict`` is ``TOOLS`` with ``strict=True``)."""
_CUT_REASON = "(the reply was cut at the token limit before its reasoning)"
_PLACEHOLDER_BYTES = ITEM_PLACEHOLDER.encode()
_SYSTEM_MARK = "\x00agenteval-system\x00"
_USER_MARK = "\x00agenteval-user\x00"


def mode_from_name(mode: Any) -> str:
    """A canonical mode name from a name or an ``instructor.Mode`` (e.g. ``Mode.TOOLS``)."""
    name = getattr(mode, "name", mode)
    key = str(name).strip().lower() if isinstance(name, str) else ""
    key = _ALIASES.get(key, key)
    if key in MODES:
        return key
    raise ConfigError(f"mode must be one of {', '.join(MODES)} (instructor mode names), "
                      f"got {mode!r}")


def instructor_handlers(mode: str) -> Any:
    """instructor's OpenAI handlers (request, response parser, re-ask) of one mode."""
    try:
        from instructor.v2 import Mode, Provider, mode_registry
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError("LLMJudge needs the 'llm' extra: pip install 'agenteval[llm]'"
                          ) from exc
    return mode_registry.get_handlers(Provider.OPENAI, Mode[_INSTRUCTOR_MODE[mode]])


def instructor_rejects() -> tuple[type[BaseException], ...]:
    """The exceptions instructor's response parsers raise for a reply they do not accept."""
    from instructor.core import InstructorError

    return (ValueError, AssertionError, InstructorError)


@dataclass(frozen=True)
class Template:
    """What every request for one verdict type shares (see the module docstring)."""

    model: type[BaseModel]
    """The verdict type given back (the reply is validated as :attr:`wire`)."""
    mode: str
    schema: dict[str, Any]
    schema_text: str
    body: dict[str, Any]
    """Request fields besides ``messages``: model, temperature, max_tokens, format fields."""
    system_suffix: str = ""
    user_suffix: str = ""
    """Added to the last user message (instructor merges it there) or, for ``plain``, nothing."""
    bos: str = "```json"
    eos: str = "```"
    reasoning_max: int | None = None
    handlers: Any = None
    """instructor's handlers of this mode (None in ``plain`` mode)."""
    rejects: tuple[type[BaseException], ...] = ()
    """What instructor's parser raises for a reply it does not accept."""
    prefix: bytes = b""
    """The request body's JSON up to its ``messages`` (encoded once, not per request)."""
    wire: type[BaseModel] | None = None
    """The verdict type on the wire: :attr:`model` with the echoed ``item`` first."""
    salvageable: bool = True
    """False when the verdict holds a list of variable length (see :func:`salvageable`)."""

    @property
    def searches(self) -> bool:
        """True for the modes that search the reply's text for the verdict (md_json, plain)."""
        return self.mode in (PLAIN, "md_json")

    def messages(self, base: list[dict[str, str]], item: str) -> list[dict[str, str]]:
        """The first request's messages: ``base`` (system, then user) with the format and the
        item id added (only in our own text: the data in ``base`` is never rewritten)."""
        msgs = [dict(m) for m in base]
        if self.system_suffix:
            msgs[0]["content"] += self.system_suffix.replace(ITEM_PLACEHOLDER, item)
        msgs[-1]["content"] += (self.user_suffix.replace(ITEM_PLACEHOLDER, item)
                                + prompts.item_line(item))
        return msgs

    def encode(self, messages: list[dict[str, Any]], item: str) -> bytes:
        """The request body (JSON bytes): the constant fields with this item's id, then
        ``messages``."""
        return b"".join((self.prefix.replace(_PLACEHOLDER_BYTES, item.encode()),
                         json.dumps(messages, separators=(",", ":")).encode(), b"}"))

    def parse(self, response: Any, *, item: str, data: str = "") -> tuple[BaseModel, bool]:
        """(verdict, salvaged): :meth:`read`, then the echoed ``item`` checked (ItemMismatch,
        not a ValueError: a reply meant for another request is not re-asked)."""
        wire, salvaged = self.read(response, data=data)
        got = getattr(wire, "item", None)
        if got != item:
            raise ItemMismatch(item, got)
        return self.model.model_construct(**{name: getattr(wire, name)
                                             for name in self.model.model_fields}), salvaged

    def read(self, response: Any, *, data: str = "") -> tuple[BaseModel, bool]:
        """(verdict, salvaged) from a completion; raises ValueError/ValidationError if invalid.

        The reply must BE the verdict (see the module docstring): in the JSON and tool modes the
        whole content (or tool arguments) is the JSON object, nothing before or after it; in the
        modes that search a text (``md_json``, ``plain``) only the reply's LAST JSON block
        counts, and never one that also occurs in the judged ``data`` (an answer that carries
        ``{"score": 1.0}`` cannot set its own verdict when the model restates it). Only a reply
        the server cut at the token limit (``finish_reason`` "length") is salvaged, and only
        when no list of variable length is part of the verdict (a cut statement list would
        change the score it decides).
        """
        choice = response.choices[0]
        message = choice.message
        check_reply_shape(message)
        cut = choice.finish_reason == "length"
        if not cut and self.handlers is not None and self.mode != "md_json":
            try:
                verdict = self.handlers.response_parser(response=response,
                                                        response_model=self.wire)
            except self.rejects as exc:
                # ValidationError, ResponseParsingError, AssertionError (a refusal): our
                # strict reading below decides (a tools reply may carry its JSON as content).
                first: Exception | None = exc
            else:
                verdict.__dict__.pop("_raw_response", None)  # instructor attaches the reply
                return verdict, False
        else:
            first = None
        text = self._text(message, cut=cut)
        self._check_not_in_data(text, data)
        try:
            return self.wire.model_validate_json(text), False
        except (ValueError, ValidationError) as exc:
            own: Exception = exc
        if cut and self.salvageable:
            salvaged = salvage_json(text)
            if salvaged is not None:
                if "reasoning" in self.model.model_fields:
                    reason = salvaged.setdefault("reasoning", _CUT_REASON)
                    limit = self.reasoning_max
                    if isinstance(reason, str) and limit is not None and len(reason) > limit:
                        salvaged["reasoning"] = reason[: limit - len(CUT_MARK)] + CUT_MARK
                try:
                    return self.wire.model_validate(salvaged), True
                except ValidationError:
                    pass
        raise (first if isinstance(first, ValueError) else own) from None

    def _text(self, message: Any, *, cut: bool = False) -> str:
        """The verdict's JSON text of a reply (see :meth:`parse`)."""
        if self.mode in ("tools", "tools_strict"):
            calls = message.tool_calls or []
            if calls:
                return calls[0].function.arguments or ""
            return message.content or ""
        content = message.content or ""
        if self.mode == PLAIN:
            return prompts_extract(content, self.bos, self.eos, cut=cut)
        if self.mode == "md_json":
            if cut:
                return prompts_extract(content, "```json", "```", cut=True)
            from instructor.v2.core.json import extract_json_from_codeblock

            return extract_json_from_codeblock(content)  # the LAST JSON object of the reply
        return content

    def _check_not_in_data(self, text: str, data: str) -> None:
        """In the modes that search a text: the verdict block must not be quoted from the data."""
        if not self.searches or not data:
            return
        block = _squeeze(text)
        if len(block) >= 2 and block in _squeeze(data):
            raise ValueError("the reply's JSON block also occurs in the judged data (it quotes "
                             "the data instead of giving its own verdict); give your own "
                             "verdict as the only JSON block")

    def reask(self, messages: list[dict[str, Any]], response: Any,
              error: Exception) -> list[dict[str, Any]]:
        """The next request's messages after an invalid reply (instructor's re-ask messages)."""
        if self.handlers is None:
            content = response.choices[0].message.content or ""
            return messages + [{"role": "assistant", "content": content},
                               {"role": "user",
                                "content": prompts.plain_reask(str(error), self.bos, self.eos)}]
        kwargs = self.handlers.reask_handler(kwargs={"messages": list(messages)},
                                             response=response, exception=error)
        return kwargs["messages"]


def prompts_extract(text: str, bos: str, eos: str, *, cut: bool = False) -> str:
    """The JSON of the LAST block between ``bos`` and ``eos``, or a reply that is bare JSON.

    The last block is the model's own verdict: an earlier one may quote the judged data. A block
    left open (no ``eos``) counts only when the server cut the reply (``cut``), so salvage can
    read what arrived. A JSON object found inside prose is never taken as the verdict.
    """
    start = text.rfind(bos)
    if start >= 0:
        body = text[start + len(bos):]
        end = body.find(eos)
        if end < 0:
            if cut and body.lstrip().startswith("{"):
                return body.strip()  # cut before the closing clause: salvage may still work
            raise ValueError(f"the JSON block opened with {bos!r} is not closed with {eos!r}")
        return body[:end].strip()
    stripped = text.strip()
    if stripped.startswith("{"):
        return stripped
    raise ValueError(f"no JSON block between {bos!r} and {eos!r} in the reply")


def check_reply_shape(message: Any) -> None:
    """A reply's message fields have the types a completion has (else the reply is invalid).

    A hostile or broken server can send ``"content": 5`` or a tool call without arguments; that
    is an invalid reply (re-asked), never an error inside the parsers.
    """
    content = message.content
    if content is not None and not isinstance(content, str):
        raise ValueError(f"the reply's content is a {type(content).__name__}, not text")
    calls = message.tool_calls
    if calls is None:
        return
    if not isinstance(calls, list):
        raise ValueError("the reply's tool_calls is not a list")
    for call in calls:
        function = getattr(call, "function", None)
        arguments = getattr(function, "arguments", None) if function is not None else None
        if not isinstance(arguments, str):
            raise ValueError("a tool call in the reply has no arguments text")


def _squeeze(text: str) -> str:
    return "".join(text.split())


def salvageable(schema: dict[str, Any]) -> bool:
    """True when no array in the schema has a variable length (its length may decide a score)."""
    stack: list[Any] = [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            if node.get("type") == "array" and (node.get("minItems") is None
                                                or node.get("minItems") != node.get("maxItems")):
                return False
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return True


def reply_tokens(schema: dict[str, Any]) -> int:
    """A ``max_tokens`` bound that fits a complete reply of this schema with room to spare."""
    props = schema.get("properties", {})
    if "verdicts" in props:
        n = props["verdicts"].get("maxItems") or 16
        return 64 + 96 * int(n)
    if "statements" in props:
        return 96 + 64 * int(props["statements"].get("maxItems") or 24)
    return 160


def build_template(model: type[BaseModel], mode: str, *, judge_model: str, temperature: float,
                   max_tokens: int | str | None, bos: str = "```json",
                   eos: str = "```") -> Template:
    """The request template of ``model`` in ``mode`` (see the module docstring).

    For the structured modes, instructor's handler prepares one request whose system and user
    messages are markers; the format fields it adds become the template's body, and what it
    appended to the two messages becomes the suffixes :meth:`Template.messages` adds.
    """
    wire = echo_model(model)
    schema = wire.model_json_schema()
    schema_text = json.dumps(schema, sort_keys=True, separators=(",", ":"))
    body: dict[str, Any] = {"model": judge_model, "temperature": temperature}
    tokens = reply_tokens(schema) if max_tokens == "auto" else max_tokens
    if tokens is not None:
        body["max_tokens"] = int(tokens)
    reason = model.model_fields.get("reasoning")
    reasoning_max = next((getattr(m, "max_length", None) for m in (reason.metadata if reason
                                                                   else ())
                          if getattr(m, "max_length", None)), None)
    handlers = None
    rejects: tuple[type[BaseException], ...] = ()
    system_suffix = user_suffix = ""
    if mode == PLAIN:
        system_suffix = prompts.plain_format_instruction(schema, bos, eos)
    elif mode in MODES:
        handlers, rejects = instructor_handlers(mode), instructor_rejects()
        kwargs: dict[str, Any] = {**body, "messages": [
            {"role": "system", "content": _SYSTEM_MARK}, {"role": "user", "content": _USER_MARK}]}
        if mode == "tools_strict":
            kwargs["strict"] = True
        _, prepared = handlers.request_handler(wire, kwargs)
        system_suffix, user_suffix = _suffixes(prepared.pop("messages"), mode)
        body = prepared
    else:  # pragma: no cover - mode names are checked where the judge is built
        raise ConfigError(f"unknown mode {mode!r}")
    prefix = json.dumps(body, separators=(",", ":"))[:-1] + ("," if body else "") + '"messages":'
    return Template(model=model, mode=mode, schema=schema, schema_text=schema_text, body=body,
                    system_suffix=system_suffix, user_suffix=user_suffix, bos=bos, eos=eos,
                    reasoning_max=reasoning_max, handlers=handlers, rejects=rejects,
                    prefix=prefix.encode(), wire=wire, salvageable=salvageable(schema))


def _suffixes(messages: list[dict[str, Any]], mode: str) -> tuple[str, str]:
    """What instructor added to the marker system and user messages (else ConfigError)."""
    if (len(messages) == 2 and [m.get("role") for m in messages] == ["system", "user"]
            and all(set(m) == {"role", "content"} for m in messages)
            and messages[0]["content"].startswith(_SYSTEM_MARK)
            and messages[1]["content"].startswith(_USER_MARK)):
        return (messages[0]["content"][len(_SYSTEM_MARK):],
                messages[1]["content"][len(_USER_MARK):])
    raise ConfigError(f"the installed instructor prepares {mode!r} requests in a shape this "
                      "agenteval does not know (it changed the messages beyond adding format "
                      "instructions); install the instructor version in constraints.txt")
