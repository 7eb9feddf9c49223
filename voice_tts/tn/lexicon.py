"""Pronunciation dictionaries: rules that say a raw word the way the user wants ("SQL" -> "sequel").

A rule is `{"match": "SQL", "say": "sequel"}` with three options: `whole_word` (default true: the
match neither starts nor ends inside a word), `case_sensitive` (default false) and `regex`
(default false: `match` is literal; when true it is a regular expression and `say` may refer to
its groups as `\\1` or `\\g<name>`). Rules apply once, to the raw text, inside the streaming
normalizer: a rule's `say` is never matched again, so rules cannot loop, and the matched raw
text stays one commit, so offsets map the spoken words back to the raw words they replace.

At one position the longest match wins; between matches of the same length the earlier rule
wins. A regular expression that can match the empty string is refused (it would match between
every two characters), and one that takes too long on some text is skipped there.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import regex

MAX_RULES = 2000
MAX_REGEX_RULES = 100
MAX_MATCH_CHARS = 200
MAX_SAY_CHARS = 500
MAX_FILE_BYTES = 1_000_000
# A regular expression gets this long on one position of the text before it is skipped there.
REGEX_TIMEOUT_S = 0.002
_OPTIONS = ("whole_word", "case_sensitive", "regex")

_END = ""  # the trie key under which rules ending at a node are kept (never a character)


class LexiconError(ValueError):
    """A dictionary that cannot be used; the message names the rule and what is wrong with it."""

    code = "invalid_lexicon"  # the wire protocol's error code


@dataclass(frozen=True, slots=True)
class LexiconRule:
    match: str
    say: str
    whole_word: bool = True
    case_sensitive: bool = False
    regex: bool = False


@dataclass(frozen=True, slots=True)
class LexiconMatch:
    end: int
    say: str
    whole_word: bool


class Lexicon:
    """A checked, compiled list of rules. Immutable; share one between sessions freely."""

    def __init__(self, rules: Iterable[LexiconRule | Mapping[str, Any]] = ()) -> None:
        checked = [_rule(i, r) for i, r in enumerate(rules)]
        if len(checked) > MAX_RULES:
            raise LexiconError(f"lexicon has {len(checked)} rules; at most {MAX_RULES} are allowed")
        if sum(r.regex for r in checked) > MAX_REGEX_RULES:
            raise LexiconError(f"lexicon has more than {MAX_REGEX_RULES} regex rules")
        self.rules: tuple[LexiconRule, ...] = tuple(checked)
        # Literal rules live in a trie of lower-cased characters, so a position costs a walk of
        # a few characters however many rules there are; regular expressions are tried in turn.
        self._trie: dict = {}
        self._regexes: list[tuple[int, regex.Pattern]] = []
        self._inside_firsts: set[str] = set()  # first characters of literal rules that may start inside a word
        self._inside_regex = False
        for i, rule in enumerate(checked):
            if rule.regex:
                try:
                    self._regexes.append((i, _compile(rule)))
                except LexiconError as exc:
                    raise LexiconError(f"rule {i}: {exc}") from exc
                self._inside_regex = self._inside_regex or not rule.whole_word
                continue
            node = self._trie
            for c in rule.match:
                node = node.setdefault(c.lower(), {})
            node.setdefault(_END, []).append(i)
            if not rule.whole_word:
                self._inside_firsts.add(rule.match[0].lower())
        self._regex_gate = _gate([rule for rule in checked if rule.regex])

    def __len__(self) -> int:
        return len(self.rules)

    def __add__(self, other: Lexicon) -> Lexicon:
        """This lexicon's rules first (they win ties), then `other`'s."""
        return self if not other else other if not self else Lexicon(self.rules + other.rules)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Lexicon) and self.rules == other.rules

    def __hash__(self) -> int:
        return hash(self.rules)

    def __repr__(self) -> str:
        return f"Lexicon({len(self.rules)} rules)"

    def as_dicts(self) -> list[dict[str, Any]]:
        """The rules as JSON objects (what `start.lexicon` carries), options only when not default."""
        defaults = LexiconRule("", "")
        return [
            {
                "match": r.match,
                "say": r.say,
                **{k: getattr(r, k) for k in _OPTIONS if getattr(r, k) != getattr(defaults, k)},
            }
            for r in self.rules
        ]

    def may_start_inside_word(self, c: str) -> bool:
        """Whether a rule that matches inside words may start where character `c` stands."""
        return self._inside_regex or c.lower() in self._inside_firsts

    def matches(self, text: str, pos: int, end: int, final: bool, inside_word: bool) -> tuple[list[LexiconMatch], bool]:
        """The rules' matches starting at `pos` in `text[:end]`, longest first (ties in rule
        order), and whether more text could still change them: a rule matched a prefix, or a
        match touches `end` while the text is not final. `inside_word`: `pos` is inside a word,
        where only rules with whole_word false may start."""
        found: list[tuple[int, int, str]] = []  # (end, rule index, say)
        waiting = False
        node, i = self._trie, pos
        while True:
            if i > pos and _END in node:
                if i == end and not final:
                    waiting = True
                else:
                    for k in node[_END]:
                        rule = self.rules[k]
                        exact = not rule.case_sensitive or text.startswith(rule.match, pos)
                        if exact and not (inside_word and rule.whole_word):
                            found.append((i, k, rule.say))
            if i >= end:
                waiting = waiting or (not final and any(key != _END for key in node))
                break
            node = node.get(text[i].lower())
            if node is None:
                break
            i += 1
        regexes = self._regexes
        gate = self._regex_gate
        if gate is not None and gate.match(text, pos, end, partial=not final, timeout=REGEX_TIMEOUT_S) is None:
            regexes = ()  # none of them matches here, not even a prefix
        for k, pattern in regexes:
            rule = self.rules[k]
            if inside_word and rule.whole_word:
                continue
            try:
                m = pattern.match(text, pos, end, partial=not final, timeout=REGEX_TIMEOUT_S)
            except TimeoutError:
                continue
            if m is None:
                continue
            if m.partial or (m.end() == end and not final):
                waiting = True
            elif m.end() > pos:
                found.append((m.end(), k, m.expand(rule.say)))
        found.sort(key=lambda match: (-match[0], match[1]))
        return [LexiconMatch(e, say, self.rules[k].whole_word) for e, k, say in found], waiting

    @classmethod
    def of(cls, value: LexiconRules) -> Lexicon | None:
        """A Lexicon from a Lexicon, a list of rules or None; None when there are no rules."""
        return None if value is None else (value if isinstance(value, Lexicon) else cls(value)) or None

    # --- loading ------------------------------------------------------------------------------

    @classmethod
    def from_json(cls, data: Any) -> Lexicon:
        """A list of rule objects, or an object with a `rules` list."""
        if isinstance(data, Mapping) and "rules" in data:
            data = data["rules"]
        if not isinstance(data, list):
            raise LexiconError("a lexicon is a list of rules like {\"match\": \"SQL\", \"say\": \"sequel\"}")
        return cls(data)

    @classmethod
    def from_csv(cls, text: str) -> Lexicon:
        """CSV with a header naming `match` and `say`, optionally the three option columns."""
        reader = csv.DictReader(io.StringIO(text))
        fields = reader.fieldnames or []
        if "match" not in fields or "say" not in fields:
            raise LexiconError(f"a CSV lexicon needs a header with 'match' and 'say' columns, got {fields}")
        if unknown := set(fields) - {"match", "say", *_OPTIONS}:
            raise LexiconError(f"unknown CSV lexicon columns {sorted(unknown)}")
        rows = []
        for line, row in enumerate(reader, start=2):
            if None in row:
                raise LexiconError(f"CSV lexicon line {line}: more fields than the header names")
            options = {}
            for key in _OPTIONS:
                if value := (row.get(key) or "").strip().lower():
                    if value not in ("true", "false", "1", "0", "yes", "no"):
                        raise LexiconError(f"CSV lexicon line {line}: {key} must be true or false, got {value!r}")
                    options[key] = value in ("true", "1", "yes")
            rows.append({"match": row["match"], "say": row["say"], **options})
        return cls(rows)

    @classmethod
    def load(cls, path: str | Path) -> Lexicon:
        """A JSON (`.json`) or CSV (any other name) file of at most MAX_FILE_BYTES."""
        path = Path(path)
        try:
            if (size := path.stat().st_size) > MAX_FILE_BYTES:
                raise LexiconError(f"lexicon file {path} has {size} bytes; at most {MAX_FILE_BYTES} are allowed")
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:  # the system's reason, or the decoder's
            raise LexiconError(f"cannot read lexicon file {path}: {getattr(exc, 'strerror', None) or exc}") from exc
        try:
            if path.suffix.lower() == ".json":
                try:
                    data = json.loads(text)
                except json.JSONDecodeError as exc:
                    raise LexiconError(f"invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}") from exc
                return cls.from_json(data)
            return cls.from_csv(text)
        except LexiconError as exc:
            raise LexiconError(f"{path}: {exc}") from exc


# What a caller may pass where rules are wanted: a Lexicon, its rules, or None for none.
LexiconRules = Lexicon | Iterable[LexiconRule | Mapping[str, Any]] | None


def _rule(i: int, raw: LexiconRule | Mapping[str, Any]) -> LexiconRule:
    if isinstance(raw, LexiconRule):
        rule = raw
    else:
        if not isinstance(raw, Mapping):
            raise LexiconError(f"rule {i}: a rule is an object like {{\"match\": \"SQL\", \"say\": \"sequel\"}}")
        if unknown := set(raw) - {"match", "say", *_OPTIONS}:
            raise LexiconError(f"rule {i}: unknown fields {sorted(unknown)}")
        for key in ("match", "say"):
            if not isinstance(raw.get(key), str):
                raise LexiconError(f"rule {i}: '{key}' must be a string")
        for key in _OPTIONS:
            if key in raw and not isinstance(raw[key], bool):
                raise LexiconError(f"rule {i}: '{key}' must be true or false")
        rule = LexiconRule(raw["match"], raw["say"], **{k: raw[k] for k in _OPTIONS if k in raw})
    if not rule.match:
        raise LexiconError(f"rule {i}: 'match' is empty")
    for key, text, most in (("match", rule.match, MAX_MATCH_CHARS), ("say", rule.say, MAX_SAY_CHARS)):
        if len(text) > most:
            raise LexiconError(f"rule {i}: '{key}' has {len(text)} characters; at most {most}")
    if any(ord(c) < 32 and c not in "\t" for c in rule.match + rule.say):
        raise LexiconError(f"rule {i}: control characters are not allowed")
    return rule


@lru_cache(maxsize=1024)  # a server sees the same per-turn rules turn after turn
def _compile(rule: LexiconRule) -> regex.Pattern:
    """A regex rule's pattern, checked: it compiles, cannot match "", and `say` names its groups."""
    flags = regex.V1 if rule.case_sensitive else regex.V1 | regex.IGNORECASE
    try:
        pattern = regex.compile(rule.match, flags)
    except regex.error as exc:
        raise LexiconError(f"invalid regex {rule.match!r}: {exc}") from exc
    if pattern.fullmatch("") is not None:
        raise LexiconError(f"regex {rule.match!r} matches the empty string")
    names = {index: name for name, index in pattern.groupindex.items()}
    try:  # expanding `say` against a match with every group empty raises when a group is unknown
        groups = (f"(?P<{names[i]}>)" if i in names else "()" for i in range(1, pattern.groups + 1))
        regex.compile("".join(groups)).match("").expand(rule.say)
    except (regex.error, IndexError) as exc:
        raise LexiconError(f"'say' refers to a group the regex does not have: {exc}") from exc
    return pattern


# Constructs whose meaning changes when a pattern is put inside a larger one (group numbers,
# recursion): a dictionary with any of them gets no gate.
_POSITIONAL = regex.compile(r"\\(?:[1-9]|g<|k<)|\(\?(?:P=|P>|&|R|[0-9+-])")


def _gate(rules: list[LexiconRule]) -> regex.Pattern | None:
    """One alternation of every regex rule: where it matches nothing, not even a prefix, none of
    the rules can, and the position costs one call instead of one per rule."""
    if len(rules) < 2 or any(_POSITIONAL.search(rule.match) for rule in rules):
        return None
    parts = [f"(?{'' if rule.case_sensitive else 'i'}:{rule.match})" for rule in rules]
    try:
        return regex.compile("|".join(parts), regex.V1)
    except regex.error:
        return None
