"""Build proseval's Chinese character table from the data files of char-similar 0.0.2.

The Meeseeks reference checks components, structures and tones with the tables that the
char-similar package ships. proseval reads the same data from one compact file
(`src/proseval/benchmarks/meeseeks/rules/data/hanzi.tsv`) instead of installing the package,
whose dependencies (macropodus, gensim 3.7.1 built from source, scikit-learn, pandas) it does
not use. char-similar is MIT-licensed; its notice is kept in the table's header.

Usage: pip download --no-deps char-similar==0.0.2 -d /tmp/cs
       python tools/build_hanzi_table.py /tmp/cs/char_similar-0.0.2-py2.py3-none-any.whl
"""

from __future__ import annotations

import json
import sys
import zipfile
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "src/proseval/benchmarks/meeseeks/rules/data/hanzi.tsv"
HEADER = (
    "# Chinese characters: component, structure code, tone field (4th field of the pinyin entry).\n"
    "# Derived from the data files of char-similar 0.0.2 (https://github.com/yongzhuo/char-similar),\n"
    "# MIT License, Copyright (c) yongzhuo. Built by tools/build_hanzi_table.py.\n"
    "char\tcomponent\tstructure\ttone\n"
)


def main(wheel: str) -> None:
    with zipfile.ZipFile(wheel) as archive:
        tables = {name: json.loads(archive.read(f"char_similar/data/char_{name}.dict"))
                  for name in ("component", "struct", "pinyin")}
    chars = sorted(set().union(*tables.values()))
    lines = []
    for ch in chars:
        pinyin = tables["pinyin"].get(ch)
        fields = [ch, tables["component"].get(ch, ""), tables["struct"].get(ch, ""), pinyin[3] if pinyin else ""]
        if any("\t" in f or "\n" in f for f in fields):
            raise ValueError(f"a field of {ch!r} holds a tab or newline")
        lines.append("\t".join(fields))
    OUT.write_text(HEADER + "\n".join(lines) + "\n", encoding="utf-8")
    print(f"{len(lines)} characters -> {OUT}")


if __name__ == "__main__":
    main(sys.argv[1])
