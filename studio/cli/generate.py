"""``studio generate RUN --seed "the man" --words 8 [--temperature T] [--top-k K] [--json]``: text from a
next-word run (lstm_lm, gru_lm, gpt_lm; words, or characters for a ``data.tokenizer = char`` run).

Greedy (the most likely token each time) when the temperature is 0, the default; sampling from
softmax(logits / T) over the ``--top-k`` most likely tokens otherwise (0, the default: all; ``--sample-seed``
makes a sample repeatable). With ``--json`` the last stdout line is one object: run_id, checkpoint, seed,
words (the new tokens), text, temperature, top_k, tokenizer, oov_in_seed, vocab_size, seconds, blank (true when
the new tokens are only spaces and line ends), undertrained ([its, the unigram model's] validation perplexity when the
run is barely better than token frequencies; else null); stderr says either in one sentence.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from studio.cli._shared import add_output_args

COMMANDS = ("generate",)


def cmd_generate(args: argparse.Namespace) -> int:
    from studio.cli._shared import emit_json, run_dir_of
    from studio.core.contracts.generate import result_notes
    from studio.engine.tasks.generate import check_request, generate

    check_request(args.words, args.temperature, args.top_k)  # before loading anything
    out = generate(run_dir_of(args.run), args.seed, args.words, args.temperature, args.sample_seed,
                   args.checkpoint, args.device, args.top_k)
    if args.json:
        emit_json(out)
    else:
        print(out["text"])
        if out["oov_in_seed"]:
            print(f"not in the run's vocabulary (read as <oov>): {', '.join(out['oov_in_seed'])}", file=sys.stderr)
    for note in result_notes(out):  # blank output, an undertrained run: said, not left to be guessed
        print(f"studio: warning: {note}", file=sys.stderr)
    return 0


def add_parser(sub: Any) -> None:
    p = sub.add_parser("generate", help="continue a seed text token by token with a next-word run (lstm_lm, gru_lm, "
                       "gpt_lm)")
    p.add_argument("run", metavar="RUN_ID_OR_DIR", help="a run id (or unique prefix) or a run directory")
    p.add_argument("--seed", required=True, help='the text to continue, e.g. "the man"')
    p.add_argument("--words", type=int, default=8, help="how many tokens to add: words, or characters for a "
                   "character-level run (default 8)")
    p.add_argument("--temperature", type=float, default=0.0,
                   help="0: greedy (default); higher: more surprising words (sampling from softmax(logits/T))")
    p.add_argument("--top-k", type=int, default=0,
                   help="sample only among the k most likely tokens (0: all, the default; with temperature > 0)")
    p.add_argument("--sample-seed", type=int, help="seed of the sampling (repeatable output at T > 0)")
    p.add_argument("--checkpoint", help="final (default), initial, a step number or a .pt file")
    p.add_argument("--device", default="cpu", help="cpu (default), auto or cuda")
    add_output_args(p)
    p.set_defaults(func=cmd_generate)
