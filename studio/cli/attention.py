"""``studio attention RUN [--text "…" | --image INDEX | --probe K] [--step N] [--json]``: a Transformer run's
attention on one input at one snapshot step (default the last).

Text is tokenised with the run's vocabulary (unknown words read as ``<oov>``); ``--image`` picks a test image;
``--probe`` (default 0) one of the validation inputs whose maps every snapshot keeps. Without ``--json`` it prints,
per layer and head, where each token looks most. With ``--json`` the last stdout line is one object: run_id,
model, kind, input, tokens, oov, causal, grid, steps, step, maps (layers × heads × T × T, rows sum to 1),
rollout (T × T), patch_maps and patch_rollout (images, else null), embedding ({labels, input, xy, variance}),
seconds. Exit 2 for a run without attention layers or a step it has no snapshot at (the sentence lists them).
"""

from __future__ import annotations

import argparse
from typing import Any

from studio.cli._shared import add_output_args

COMMANDS = ("attention",)


def _list(a: Any) -> Any:
    return None if a is None else [[round(float(v), 5) for v in row] for row in a] if a.ndim == 2 else \
        [_list(part) for part in a]


def cmd_attention(args: argparse.Namespace) -> int:
    from studio.cli._shared import emit_json, run_dir_of
    from studio.core.contracts.attention import AttentionRequest
    from studio.engine.tasks.attention import attention_steps, compute

    run_dir = run_dir_of(args.run)
    request = AttentionRequest(str(run_dir), args.text, args.image, args.probe, args.step, args.device).validate()
    if args.step is None:
        request = AttentionRequest(str(run_dir), args.text, args.image, args.probe,
                                   attention_steps(run_dir)[-1].step, args.device)
    out = compute(request)
    frame = out["frames"][-1]
    if args.json:
        emit_json({
            "run_id": out["run_id"], "model": out["model"], "kind": out["kind"], "input": out["input"],
            "tokens": out["tokens"], "oov": out["oov"], "causal": out["causal"], "grid": out["grid"],
            "steps": out["steps"], "step": frame["step"], "maps": _list(frame["maps"]),
            "rollout": _list(frame["rollout"]), "patch_maps": _list(frame["patch_maps"]),
            "patch_rollout": _list(frame["patch_rollout"]),
            "embedding": {"labels": out["embedding_labels"], "input": out["embedding_input"],
                          "xy": _list(frame["embedding"]), "variance": frame["variance"]},
            "seconds": out["seconds"],
        })
        return 0
    tokens = out["tokens"]
    print(f"run {out['run_id']} ({out['model']}) · {out['input']} · step {frame['step']} "
          f"(snapshots at steps {', '.join(map(str, out['steps']))})")
    if out["oov"]:
        print(f"not in the run's vocabulary (read as <oov>): {', '.join(out['oov'])}")
    for layer, heads in enumerate(frame["maps"]):
        for head, rows in enumerate(heads):
            looks = " ".join(f"{tokens[i]}→{tokens[int(row.argmax())]}" for i, row in enumerate(rows))
            print(f"layer {layer + 1} head {head + 1}: {looks}")
    return 0


def add_parser(sub: Any) -> None:
    p = sub.add_parser("attention", help="a Transformer run's attention maps on a text or image (per layer, head)")
    p.add_argument("run", metavar="RUN_ID_OR_DIR", help="a run id (or unique prefix) or a run directory")
    which = p.add_mutually_exclusive_group()
    which.add_argument("--text", help='text to tokenise with the run\'s vocabulary, e.g. "the cat sat"')
    which.add_argument("--image", type=int, metavar="INDEX", help="a test image of an image run, by index")
    which.add_argument("--probe", type=int, metavar="K",
                       help="one of the validation inputs kept with every snapshot (the default: 0)")
    p.add_argument("--step", type=int, help="the snapshot step (default: the last); the run's steps are listed "
                                            "when it has none there")
    p.add_argument("--device", default="cpu", help="cpu (default), auto or cuda")
    add_output_args(p)
    p.set_defaults(func=cmd_attention)
