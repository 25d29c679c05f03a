"""Write small, real Inspect AI eval logs with Inspect's own mock model (no network).

Run as a script by ``tests/core/test_inspect_logs.py``: ``python make_inspect_logs.py OUT_DIR``.
Two models ("agents") answer three arithmetic samples over three epochs with a tool-using
solver (``use_tools`` + ``generate``: the mock model calls ``add``, sometimes twice in one
message, then answers from the result), scored by ``match`` and by a scorer that returns every
kind of value (C, I, P, N and numbers). One sample of one model errors on one epoch. Each model
writes one ``.eval`` and one ``.json`` log. Any attempt to open a non-loopback connection fails.

``python make_inspect_logs.py OUT_DIR --states`` writes, into ``OUT_DIR/states``, logs in the
states a run can end in short of complete (issue 18.5), each by Inspect itself:
``cancelled.eval`` (SIGINT during the run: Inspect's own cancellation, status "cancelled"),
``error.eval`` (a sample error with ``fail_on_error``: status "error", later epochs never run),
``success.eval`` (complete) and ``beyond.eval`` (that log re-written by ``write_eval_log`` with
``config.epochs`` lowered to 2, so its third epoch lies beyond the configured count).
"""

from __future__ import annotations

import socket
import sys
from pathlib import Path


def _block_network() -> None:
    """Any connection but to loopback fails (the mock model needs none)."""
    connect = socket.socket.connect

    def loopback_only(self: socket.socket, address: object) -> object:
        host = address[0] if isinstance(address, tuple) else address
        if isinstance(host, str) and (host.startswith("127.") or host in ("::1", "localhost")):
            return connect(self, address)  # type: ignore[arg-type]
        raise OSError(f"network access blocked in tests: {address!r}")

    socket.socket.connect = loopback_only  # type: ignore[method-assign]


def build():  # noqa: ANN201
    """Inspect's pieces, imported only when the script runs (pytest imports this file too)."""
    from inspect_ai import Task
    from inspect_ai.dataset import Sample
    from inspect_ai.model import ModelOutput, ModelUsage
    from inspect_ai.scorer import Score, Target, accuracy, match, scorer
    from inspect_ai.solver import TaskState, generate, use_tools
    from inspect_ai.tool import tool

    # value of the "graded" scorer, by sample and epoch: every kind Inspect scorers give
    GRADE_CYCLE = ["C", "I", "P", "N", 0.25, 1.0, "C", "C", 0.0]

    @tool
    def add():  # noqa: ANN201
        async def execute(x: int, y: int) -> int:
            """Add two integers.

            Args:
                x: the first integer
                y: the second integer
            """
            return x + y

        return execute

    @scorer(metrics=[accuracy()])
    def graded():  # noqa: ANN201
        async def score(state: TaskState, target: Target) -> Score:
            i = (int(str(state.sample_id)[1:]) * 3 + state.epoch) % len(GRADE_CYCLE)
            return Score(value=GRADE_CYCLE[i], answer=state.output.completion)

        return score

    def _usage(out: ModelOutput) -> ModelOutput:
        out.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)  # no token counting
        return out

    def outputs(name: str):  # noqa: ANN201
        """The mock model's policy: call add (twice in parallel for s2), then answer."""
        state = {"calls": 0, "s3": 0}

        def policy(input, tools, tool_choice, config):  # noqa: ANN001, ANN202
            state["calls"] += 1
            last = input[-1]
            if last.role == "tool":
                answer = last.text
                if name == "model-b" and state["calls"] % 4 == 0:
                    answer = "41"  # a wrong answer now and then
                return _usage(ModelOutput.from_content(f"mockllm/{name}", content=answer))
            question = last.text
            if "3 plus" in question:
                state["s3"] += 1
                if name == "model-b" and state["s3"] == 2:
                    raise RuntimeError("mock model failure")  # one errored sample epoch
            a, b = [int(t) for t in question.replace("?", " ").split() if t.isdigit()][:2]
            out = ModelOutput.for_tool_call(f"mockllm/{name}", tool_name="add",
                                            tool_arguments={"x": a, "y": b})
            if "2 plus" in question:  # two calls in one message (parallel)
                second = ModelOutput.for_tool_call(f"mockllm/{name}", tool_name="add",
                                                   tool_arguments={"x": b, "y": a})
                out.choices[0].message.tool_calls.append(second.choices[0].message.tool_calls[0])
            return _usage(out)

        return policy

    def task() -> Task:
        samples = [Sample(id=f"s{i}", input=f"What is {i} plus {i + 1} ?", target=str(2 * i + 1))
                   for i in range(1, 4)]
        return Task(dataset=samples, solver=[use_tools(add()), generate()],
                    scorer=[match(numeric=True), graded()])

    return task, outputs


def main(out_dir: str) -> None:
    _block_network()
    from inspect_ai import eval as inspect_eval
    from inspect_ai.model import get_model

    task, outputs = build()
    out = Path(out_dir)
    for name in ("model-a", "model-b"):
        for fmt in ("eval", "json"):
            [log] = inspect_eval(task(), model=get_model(f"mockllm/{name}",
                                                        custom_outputs=outputs(name)),
                                 log_dir=str(out / fmt), log_format=fmt, epochs=3,
                                 display="none", fail_on_error=False, max_samples=1)
            print(fmt, name, log.status, log.location)


def states(out_dir: str) -> None:
    """The incomplete states (module docstring), one ``.eval`` log each."""
    import os
    import signal
    import shutil

    _block_network()
    from inspect_ai import eval as inspect_eval
    from inspect_ai.log import read_eval_log, write_eval_log
    from inspect_ai.model import get_model

    task, outputs = build()
    out = Path(out_dir) / "states"
    out.mkdir(parents=True, exist_ok=True)

    def run(name: str, policy, **options) -> Path:  # noqa: ANN001
        folder = out / f"_{name}"
        try:
            inspect_eval(task(), model=get_model(f"mockllm/{name}-model", custom_outputs=policy),
                         log_dir=str(folder), log_format="eval", epochs=3, display="none",
                         max_samples=1, **options)
        except KeyboardInterrupt:  # the cancelled run may re-raise it once the log is written
            pass
        [path] = folder.glob("*.eval")
        target = out / f"{name}.eval"
        shutil.move(str(path), target)
        shutil.rmtree(folder)
        return target

    inner, calls = outputs("model-a"), {"n": 0}

    def interrupted(input, tools, tool_choice, config):  # noqa: ANN001, ANN202
        calls["n"] += 1
        if calls["n"] == 9:  # during the second epoch: what Ctrl+C does
            os.kill(os.getpid(), signal.SIGINT)
        return inner(input, tools, tool_choice, config)

    for name, policy, options in (("cancelled", interrupted, {"fail_on_error": False}),
                                  ("error", outputs("model-b"), {}),  # fail_on_error: default
                                  ("success", outputs("model-a"), {})):
        path = run(name, policy, **options)
        print(name, read_eval_log(str(path), header_only=True).status, path)
    log = read_eval_log(str(out / "success.eval"))
    log.eval.config.epochs = 2
    write_eval_log(log, str(out / "beyond.eval"))
    print("beyond", log.status, out / "beyond.eval")


if __name__ == "__main__":
    if sys.argv[2:] == ["--states"]:
        states(sys.argv[1])
    else:
        main(sys.argv[1])
