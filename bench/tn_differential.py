"""Differential test of text normalization against NeMo-text-processing's grammars, on generated
sentences that no rule was written from.

For each language, `tn_inputs.generate` draws sentences with one number of each class in them
(seeded: the same seed gives the same inputs). Each is normalized with ours
(`voice_tts.tn.normalize`) and with NeMo's TN grammar, which runs in a separate virtual environment
through `tn_nemo_oracle.py` (NeMo is a development-time reference: the project never imports it).
NeMo's readings are cached per language and chunk of inputs in `--cache`, so a re-run after a
rule change costs only our side (NeMo takes about a second a sentence on one core; `--nemo-only
--jobs N` fills the cache first). NeMo gets each sentence with its final mark apart from the last
word, as its grammars' own test data has it (see `nemo_text`); ours gets it as written.

Comparison, after a light canonical form of both readings: Unicode NFKC, lower case, "ё" as "е",
written accents dropped (Italian "ventitré" = "ventitre"; not in Russian, Japanese, Korean),
every character that is not a letter or a digit turned into a space, spaces collapsed, and the
separable spellings of compounds joined where a language writes them both ways (German
"vier und zwanzig" = "vierundzwanzig", Italian "tremila quattrocento" = "tremilaquattrocento"): a
reading agrees when its canonical form equals that of NeMo's first reading (a grammar that gives
several readings, Russian's, ranks them; any of 200 would accept almost anything). Disagreements
that are NeMo's mistakes, or its choice among readings its own test data accepts alike, are listed
with a reason in `tn_differential_reference_errors.json` (see `reference_error`); each reason also
checks our reading (its `ours` pattern), so a case where NeMo and we are both wrong stays open. They
are counted apart, never as agreement, with examples of both readings per reason.

    python3.11 -m venv /work/nemo-venv && /work/nemo-venv/bin/pip install nemo_text_processing==1.2.0
    .venv/bin/python bench/tn_differential.py [--lang de ru] [--per-class 225] [--seed 0]
        [--nemo-python /work/nemo-venv/bin/python] [--cache /work/nemo-cache] [--jobs 2]
        [--json bench/results/tn_differential.json] [--show 5] [--nemo-only] [--markdown]
"""

from __future__ import annotations

import argparse
import collections
import hashlib
import json
import re
import subprocess
import sys
import time
import unicodedata
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from tn_inputs import CLASSES, LANGUAGES, Case, generate  # noqa: E402

HERE = Path(__file__).resolve().parent
REFERENCE_ERRORS = HERE / "tn_differential_reference_errors.json"
# Languages whose numbers are written as one word or apart alike: compare them without spaces.
JOINED = frozenset({"de", "it", "ja", "ko"})


def canonical(text: str, lang: str) -> str:
    text = unicodedata.normalize("NFKC", text).lower().replace("ё", "е")
    if lang not in ("ru", "ja", "ko"):  # written accents: 'ventitré' = 'ventitre', 'dieciséis' = 'dieciseis'
        text = "".join(c for c in unicodedata.normalize("NFD", text) if unicodedata.category(c) != "Mn")
        text = unicodedata.normalize("NFC", text)
    text = " ".join("".join(c if c.isalnum() else " " for c in text).split())
    return text.replace(" ", "") if lang in JOINED else text


def nemo_text(text: str) -> str:
    """The sentence as NeMo's grammars take it: their test data has the final mark apart from the
    last word ('am 22.08.2030 .'); glued to a number it makes the number unreadable to them.
    Japanese keeps its '。' where it is (a space before it makes NeMo's Japanese grammar fail)."""
    return re.sub(r"(?<=\w)([.!?])$", r" \1", text)


def _oracle(lang: str, texts: list[str], nemo_python: str, cache: Path) -> list:
    key = hashlib.sha256(json.dumps([lang, texts], ensure_ascii=False).encode()).hexdigest()[:20]
    path = cache / "readings" / f"{lang}_{key}.json"
    if path.exists():
        return json.loads(path.read_text(encoding="utf-8"))
    batch = json.dumps({"lang": lang, "texts": texts, "cache_dir": str(cache)}, ensure_ascii=False)
    done = subprocess.run([nemo_python, str(HERE / "tn_nemo_oracle.py")], input=batch, capture_output=True,
                          text=True, check=True)
    readings = json.loads(done.stdout)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(readings, ensure_ascii=False), encoding="utf-8")
    return readings


def nemo_readings(cases: list[Case], lang: str, nemo_python: str, cache: Path, jobs: int, chunk: int = 100) -> list:
    """NeMo's readings of each case, in chunks that are cached once read (a run that stops keeps
    what it has), `jobs` oracle processes at a time."""
    texts = [nemo_text(c.text) for c in cases]
    chunks = [texts[i:i + chunk] for i in range(0, len(texts), chunk)]
    with ThreadPoolExecutor(jobs) as pool:
        parts = list(pool.map(lambda part: _oracle(lang, part, nemo_python, cache), chunks))
    return [reading for part in parts for reading in part]


def shape(written: str) -> str:
    """The number's shape, its digits as 9 ('1.234,56 €' → '9.999,99 €'), to group disagreements."""
    return re.sub(r"\d", "9", written)


def reference_error(case: Case, ours: str, nemo: str, known: list[dict]) -> dict | None:
    """The reason NeMo's reading is wrong, where a known error matches: its language, its class
    ("*": any), a pattern of the input, a pattern of NeMo's reading, our reading right by the
    entry (`ours_right`) and, with `agree_before`, both readings the same up to that word (the
    error is in what follows it)."""
    for entry in known:
        if entry["lang"] != case.lang or entry["class"] not in (case.cls, "*"):
            continue
        if not re.search(entry["input"], case.text) or not re.search(entry.get("nemo", ""), nemo):
            continue
        if not ours_right(entry, ours, nemo.split(" | ")[0], case.lang):
            continue
        if word := entry.get("agree_before"):
            if canonical(ours, case.lang).split(word)[0] != canonical(nemo, case.lang).split(word)[0]:
                continue
        return entry
    return None


def ours_right(entry: dict, ours: str, nemo_first: str = "", lang: str = "") -> bool:
    """Whether our reading is right by a reason: with `ours_is_nemo_with` (a pattern and its
    replacement), it is NeMo's first reading with what NeMo leaves out put back, the same word for
    word otherwise; else it matches the reason's `ours` pattern (the right reading's shape); a
    reason with neither only says what NeMo gets wrong, so ours must not match that and must leave
    no digit unread; a reason with none of them never explains a case."""
    if "ours_is_nemo_with" in entry:
        pattern, replacement = entry["ours_is_nemo_with"]
        return canonical(ours, lang) == canonical(re.sub(pattern, replacement, nemo_first, count=1), lang)
    if "ours" in entry:
        return re.search(entry["ours"], ours) is not None
    if "nemo" in entry:
        return re.search(entry["nemo"], ours) is None and not re.search(r"\d", ours)
    return False


def compare(lang: str, cases: list[Case], readings: list, known: list[dict], show: int) -> dict:
    from voice_tts.tn import normalize

    classes: dict[str, dict] = {}
    for cls in CLASSES:
        classes[cls] = {"n": 0, "agree": 0, "reference_errors": 0, "nemo_failed": 0,
                        "disagreements": collections.defaultdict(list)}
    reasons: dict[str, list] = collections.defaultdict(list)
    for case, reference in zip(cases, readings):
        row = classes[case.cls]
        row["n"] += 1
        ours = normalize(case.text, language=lang)
        if isinstance(reference, dict):
            row["nemo_failed"] += 1
            row["disagreements"][f"NeMo raised | {reference['error'][:60]}"].append({"input": case.text, "ours": ours})
            continue
        if canonical(ours, lang) == canonical(reference[0], lang):  # NeMo's first reading, its best
            row["agree"] += 1
            continue
        if entry := reference_error(case, ours, " | ".join(reference), known):
            row["reference_errors"] += 1
            reasons[(entry["kind"], entry["reason"])].append({"input": case.text, "ours": ours, "nemo": reference[0] if len(reference) == 1 else reference[:3]})
            continue
        row["disagreements"][f"{case.frame} | {shape(case.written)}"].append(
            {"input": case.text, "ours": ours, "nemo": reference[0] if len(reference) == 1 else reference[:3]})
    total = {k: sum(r[k] for r in classes.values()) for k in ("n", "agree", "reference_errors", "nemo_failed")}
    total["open_disagreements"] = total["n"] - total["agree"] - total["reference_errors"] - total["nemo_failed"]
    out = {**total, "agreement_pct": round(100 * total["agree"] / total["n"], 1),
           "agreement_or_reference_error_pct": round(100 * (total["agree"] + total["reference_errors"]) / total["n"], 1),
           "reference_errors_by_reason": [{"kind": k, "reason": r, "n": len(ex), "examples": ex[:show]}
                                          for (k, r), ex in sorted(reasons.items(), key=lambda kv: -len(kv[1]))],
           "classes": {}}
    for cls, row in classes.items():
        groups = sorted(row.pop("disagreements").items(), key=lambda kv: -len(kv[1]))
        row["agreement_pct"] = round(100 * row["agree"] / row["n"], 1) if row["n"] else None
        row["disagreement_groups"] = [{"group": g, "n": len(ex), "examples": ex[:show]} for g, ex in groups]
        out["classes"][cls] = row
    return out


def markdown(report: dict) -> str:
    """The agreement table of a report: a row per class, a column per language."""
    langs = list(report["languages"])
    rows = ["| class | " + " | ".join(langs) + " |", "|---|" + "---|" * len(langs)]
    for cls in CLASSES:
        cells = []
        for lang in langs:
            row = report["languages"][lang]["classes"][cls]
            extra = f" (+{row['reference_errors']})" if row["reference_errors"] else ""
            cells.append(f"{row['agree']}/{row['n']}{extra}")
        rows.append(f"| {cls} | " + " | ".join(cells) + " |")
    rows.append("| **agreement** | " + " | ".join(f"**{report['languages'][x]['agreement_pct']} %**" for x in langs) + " |")
    rows.append("| agreement or explained | " + " | ".join(
        f"{report['languages'][x]['agreement_or_reference_error_pct']} %" for x in langs) + " |")
    rows.append("| NeMo raised | " + " | ".join(str(report["languages"][x]["nemo_failed"]) for x in langs) + " |")
    rows.append("| open | " + " | ".join(str(report["languages"][x]["open_disagreements"]) for x in langs) + " |")
    rows.append("")
    for lang in langs:
        for entry in report["languages"][lang]["reference_errors_by_reason"]:
            rows.append(f"- {lang}, {entry['kind']}, {entry['n']}: {entry['reason']}")
    return "\n".join(rows)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lang", nargs="+", default=list(LANGUAGES))
    ap.add_argument("--per-class", type=int, default=225, help="sentences per class (9 classes)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--nemo-python", default="/work/nemo-venv/bin/python")
    ap.add_argument("--cache", type=Path, default=Path("/work/nemo-cache"))
    ap.add_argument("--json", type=Path, default=HERE / "results" / "tn_differential.json")
    ap.add_argument("--show", type=int, default=3, help="examples kept per disagreement group")
    ap.add_argument("--jobs", type=int, default=1, help="NeMo processes at a time")
    ap.add_argument("--nemo-only", action="store_true", help="only fill the cache of NeMo's readings")
    ap.add_argument("--markdown", action="store_true", help="print the table of the JSON report and stop")
    args = ap.parse_args()

    if args.markdown:
        print(markdown(json.loads(args.json.read_text(encoding="utf-8"))))
        return 0
    args.cache.mkdir(parents=True, exist_ok=True)
    known = json.loads(REFERENCE_ERRORS.read_text(encoding="utf-8"))["errors"]
    report = json.loads(args.json.read_text(encoding="utf-8")) if args.json.exists() else {}
    report.setdefault("languages", {})
    report["conditions"] = {"seed": args.seed, "per_class": args.per_class, "nemo_text_processing": "1.2.0",
                            "pynini": "2.1.6.post1", "comparison": "canonical form, see bench/tn_differential.py"}
    for lang in args.lang:
        started = time.perf_counter()
        cases = generate(lang, args.per_class, args.seed)
        readings = nemo_readings(cases, lang, args.nemo_python, args.cache, args.jobs)
        if args.nemo_only:
            print(f"{lang}: {len(readings)} NeMo readings cached [{time.perf_counter() - started:.0f} s]", flush=True)
            continue
        result = compare(lang, cases, readings, known, args.show)
        report["languages"][lang] = result
        per_class = ", ".join(f"{c} {r['agreement_pct']}" for c, r in result["classes"].items())
        print(f"{lang}: {result['agree']}/{result['n']} agree ({result['agreement_pct']} %), "
              f"{result['reference_errors']} NeMo errors, {result['nemo_failed']} NeMo failed "
              f"[{time.perf_counter() - started:.0f} s] | {per_class}", flush=True)
    if args.nemo_only:
        return 0
    report["languages"] = {x: report["languages"][x] for x in LANGUAGES if x in report["languages"]}
    args.json.write_text(json.dumps(report, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
