"""Request templates per verdict type and output mode, built once per judge; reply parsing.

A :class:`Template` holds everything a request for one verdict type needs that does not depend
on the item: the JSON schema (and its canonical text for the cache key), the structured-output
fields (``response_format`` or ``tools``/``tool_choice``), the format instructions of the
prompt-only modes, and the ``max_tokens`` bound. Building it costs a schema generation; sending
a request then costs one dict merge. The modes follow instructor's OpenAI handlers (same request
shapes, same re-ask messages), without instructor's per-request model preparation:

    json_schema   response_format json_schema (llama.cpp, vLLM, OpenAI enforce it by grammar)
    tools         one forced function call whose parameters are the schema
    tools_strict  the same with ``strict: true``
    json          response_format json_object, the schema in the system message
    md_json       the schema in the system message, the reply in a ```json block
    plain         ``use_structured_output=False``: a fenced block between custom clauses
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ValidationError

from agenteval.errors import ConfigError
from agenteval.judge import prompts
from agenteval.judge.salvage import CUT_MARK, salvage_json

PLAIN = "plain"
MODES = ("json_schema", "tools", "tools_strict", "json", "md_json")
_ALIASES = {"json_schema_mode": "json_schema", "tool_call": "tools", "json_mode": "json",
            "markdown_json_mode": "md_json"}
_CUT_REASON = "(the reply was cut at the token limit before its reasoning)"


def mode_from_name(mode: Any) -> str:
    """A canonical mode name from a name or an ``instructor.Mode`` (e.g. ``Mode.TOOLS``)."""
    name = getattr(mode, "name", mode)
    key = str(name).strip().lower() if isinstance(name, str) else ""
    key = _ALIASES.get(key, key)
    if key in MODES:
        return key
    raise ConfigError(f"mode must be one of {', '.join(MODES)} (instructor mode names), "
                      f"got {mode!r}")


@dataclass(frozen=True)
class Template:
    """What every request for one verdict type shares (see the module docstring)."""

    model: type[BaseModel]
    mode: str
    schema: dict[str, Any]
    schema_text: str
    body: dict[str, Any]
    """Request fields besides ``messages``: model, temperature, max_tokens, format fields."""
    system_suffix: str = ""
    user_suffix: str = ""
    bos: str = "```json"
    eos: str = "```"
    reasoning_max: int | None = None

    def messages(self, base: list[dict[str, str]]) -> list[dict[str, str]]:
        """The first request's messages: ``base`` with this mode's format instructions."""
        msgs = [dict(m) for m in base]
        if self.system_suffix:
            msgs[0]["content"] += self.system_suffix
        if self.user_suffix:
            msgs.append({"role": "user", "content": self.user_suffix})
        return msgs

    def parse(self, response: Any) -> tuple[BaseModel, bool]:
        """(verdict, salvaged) from a completion; raises ValueError/ValidationError if invalid.

        A reply cut at the token limit (or otherwise not closed) is salvaged when its verdict
        fields are complete: the open reasoning is closed and marked, a missing top-level
        reasoning is filled in, and the result must still validate against the schema.
        """
        choice = response.choices[0]
        text = self._text(choice.message)
        try:
            return self.model.model_validate_json(text), False
        except (ValueError, ValidationError) as exc:
            salvaged = salvage_json(text)
            if salvaged is None:
                raise exc from None
            if "reasoning" in self.model.model_fields:
                reason = salvaged.setdefault("reasoning", _CUT_REASON)
                limit = self.reasoning_max
                if isinstance(reason, str) and limit is not None and len(reason) > limit:
                    salvaged["reasoning"] = reason[: limit - len(CUT_MARK)] + CUT_MARK
            try:
                return self.model.model_validate(salvaged), True
            except ValidationError:
                raise exc from None

    def _text(self, message: Any) -> str:
        if self.mode in ("tools", "tools_strict"):
            calls = getattr(message, "tool_calls", None) or []
            if calls:
                return calls[0].function.arguments or ""
            return message.content or ""
        content = message.content or ""
        if self.mode in (PLAIN, "md_json"):
            return prompts_extract(content, self.bos, self.eos, lenient=self.mode == "md_json")
        return content

    def reask(self, messages: list[dict[str, Any]], response: Any,
              error: str) -> list[dict[str, Any]]:
        """The next request's messages after an invalid reply (instructor's re-ask shapes)."""
        message = response.choices[0].message
        content = message.content or ""
        if self.mode == PLAIN:
            return messages + [{"role": "assistant", "content": content},
                               {"role": "user",
                                "content": prompts.plain_reask(error, self.bos, self.eos)}]
        if self.mode in ("tools", "tools_strict"):
            calls = getattr(message, "tool_calls", None) or []
            fix = f"Validation Error found:\n{error}\nRecall the function correctly, fix the errors"
            if not calls:
                return messages + [{"role": "assistant", "content": content},
                                   {"role": "user", "content": fix}]
            dumped = [{"id": c.id, "type": "function",
                       "function": {"name": c.function.name, "arguments": c.function.arguments}}
                      for c in calls]
            return messages + [{"role": "assistant", "content": content or None,
                                "tool_calls": dumped}] + [
                {"role": "tool", "tool_call_id": c.id, "name": c.function.name, "content": fix}
                for c in calls]
        return messages + [{"role": "assistant", "content": content},
                           {"role": "user", "content": "Correct your JSON ONLY RESPONSE, based "
                                                       f"on the following errors:\n{error}"}]


def prompts_extract(text: str, bos: str, eos: str, *, lenient: bool = False) -> str:
    """The JSON between ``bos`` and ``eos``; a cut block (no ``eos``) keeps what arrived."""
    start = text.find(bos)
    if start >= 0:
        body = text[start + len(bos):]
        end = body.find(eos)
        if end < 0:
            if lenient or body.lstrip().startswith("{"):
                return body.strip()  # cut before the closing clause: salvage may still work
            raise ValueError(f"the JSON block opened with {bos!r} is not closed with {eos!r}")
        return body[:end].strip()
    stripped = text.strip()
    if stripped.startswith("{"):
        return stripped
    if lenient and "{" in stripped:
        return stripped[stripped.index("{"):]
    raise ValueError(f"no JSON block between {bos!r} and {eos!r} in the reply")


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
    """The request template of ``model`` in ``mode`` (see the module docstring)."""
    schema = model.model_json_schema()
    schema_text = json.dumps(schema, sort_keys=True, separators=(",", ":"))
    body: dict[str, Any] = {"model": judge_model, "temperature": temperature}
    tokens = reply_tokens(schema) if max_tokens == "auto" else max_tokens
    if tokens is not None:
        body["max_tokens"] = int(tokens)
    reason = model.model_fields.get("reasoning")
    reasoning_max = next((getattr(m, "max_length", None) for m in (reason.metadata if reason
                                                                   else ())
                          if getattr(m, "max_length", None)), None)
    name = model.__name__
    system_suffix = user_suffix = ""
    if mode == "json_schema":
        body["response_format"] = {"type": "json_schema",
                                   "json_schema": {"name": name, "schema": schema}}
    elif mode in ("tools", "tools_strict"):
        function: dict[str, Any] = {"name": name, "description": (model.__doc__ or name).strip(),
                                    "parameters": schema}
        if mode == "tools_strict":
            function["strict"] = True
        body["tools"] = [{"type": "function", "function": function}]
        body["tool_choice"] = {"type": "function", "function": {"name": name}}
    elif mode in ("json", "md_json"):
        system_suffix = ("\n\nAs a genius expert, your task is to understand the content and "
                         "provide the parsed objects in json that match the following "
                         f"json_schema:\n\n{json.dumps(schema, indent=2, ensure_ascii=False)}\n\n"
                         "Make sure to return an instance of the JSON, not the schema itself")
        if mode == "json":
            body["response_format"] = {"type": "json_object"}
        else:
            user_suffix = ("Return the correct JSON response within a ```json codeblock. not "
                           "the JSON_SCHEMA")
    elif mode == PLAIN:
        system_suffix = prompts.plain_format_instruction(schema, bos, eos)
    else:  # pragma: no cover - mode names are checked where the judge is built
        raise ConfigError(f"unknown mode {mode!r}")
    return Template(model=model, mode=mode, schema=schema, schema_text=schema_text, body=body,
                    system_suffix=system_suffix, user_suffix=user_suffix, bos=bos, eos=eos,
                    reasoning_max=reasoning_max)
