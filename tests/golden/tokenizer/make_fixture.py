"""Makes bpe-512.json, the small Hugging Face tokenizer the token-counter tests and
golden vectors use: a byte-level BPE (the GPT-2 / cl100k family's pre-tokenizer, so a
word after a space is its own pre-token) with 512 tokens, trained by the `tokenizers`
library on the core's shipped tool library notes (core/steadlith_core/data/tool-library.md,
written for this project, kept byte for byte, Apache-2.0 like the rest of the repository;
see its NOTICE). The fixture is Apache-2.0 too. Run from the repository root:

    python tests/golden/tokenizer/make_fixture.py

The committed file is the fixture: its bytes are pinned by the golden vectors, so run
this only to make a new fixture (and new vectors) on purpose.
"""

import json
from pathlib import Path

from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

root = Path(__file__).resolve().parents[3]
files = [str(root / "core" / "steadlith_core" / "data" / "tool-library.md")]
tok = Tokenizer(models.BPE())
tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
tok.decoder = decoders.ByteLevel()
trainer = trainers.BpeTrainer(vocab_size=512, show_progress=False, special_tokens=["<|endoftext|>"],
                              initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
tok.train(files, trainer)
# merges as "a b" strings, the form every tokenizers release since 0.19 (the extra's lower
# bound) reads; 0.20 and later write pairs, which 0.19 cannot load. A byte-level token never
# holds a space, so the form is unambiguous.
doc = json.loads(tok.to_str(pretty=False))
doc["model"]["merges"] = [m if isinstance(m, str) else " ".join(m) for m in doc["model"]["merges"]]
out = Path(__file__).with_name("bpe-512.json")
out.write_text(json.dumps(doc, ensure_ascii=False, separators=(",", ":")), encoding="utf-8")
print(out, out.stat().st_size, "bytes")
