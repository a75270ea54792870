"""`Shape`: a token that is a fixed prefix and then a run of one alphabet, matched without `re`.

Most rows of the secret table are such a token (`ghp_` and 36 alphanumerics,
`glpat-` and 20 of base64url, `key-` and 32 hex). Compiling a regular
expression costs tens of microseconds each, and a note that holds every
prefix would compile them all on the gate's first call; a `Shape` costs
nothing to build and is checked with `str.find` and a set. `Shape.regex()`
writes the same shape as an expression, for the reader and for the test that
holds the two to the same answers.

A shape matches where, in order:

- one of `prefixes` occurs (compared in lower case when `fold_case`);
- the character before it, if any, is not in `before`;
- `low` to `high` characters of `alphabet` follow it;
- the character after that run, if any, is not in `after`. The run is taken
  greedily; when `after` is given it holds the whole alphabet (the regular
  expression would not find a shorter run either).

Invariant: `search` answers yes or no; it never returns the text it saw.
"""

from __future__ import annotations


def chars(spec: str) -> str:
    """The characters of a class written as in a regular expression (`A-Za-z0-9_-`), in order.

    `-` is a range between two characters, a literal at either end.
    """
    out: list[str] = []
    i = 0
    while i < len(spec):
        if i + 2 < len(spec) and spec[i + 1] == "-":
            out += [chr(c) for c in range(ord(spec[i]), ord(spec[i + 2]) + 1)]
            i += 3
        else:
            out.append(spec[i])
            i += 1
    return "".join(dict.fromkeys(out))


def _both_cases(letters: str) -> str:
    return letters.lower() + letters.upper()


# A handful of classes serve the whole table (base62, base64url, hex): each set is built once.
_SETS: dict[tuple[str, bool], frozenset[str]] = {}


def _set(spec: str, fold_case: bool) -> frozenset[str]:
    found = _SETS.get((spec, fold_case))
    if found is None:
        letters = chars(spec)
        # In lower-cased text a class written in capitals must still match: both cases.
        found = _SETS[(spec, fold_case)] = frozenset(_both_cases(letters) if fold_case else letters)
    return found


def _class(spec: str) -> str:
    return "[" + spec + "]"


class Shape:
    """A prefix and a run of one alphabet (see the module docstring)."""

    __slots__ = (
        "after",
        "after_spec",
        "alphabet",
        "alphabet_spec",
        "before",
        "before_spec",
        "fold_case",
        "high",
        "low",
        "prefixes",
    )

    def __init__(
        self,
        prefixes: tuple[str, ...],
        alphabet: str,
        low: int,
        high: int | None = None,
        *,
        before: str = "",
        after: str = "",
        fold_case: bool = False,
    ) -> None:
        self.prefixes = tuple(p.lower() for p in prefixes) if fold_case else prefixes
        self.alphabet_spec, self.before_spec, self.after_spec = alphabet, before, after
        self.low = low
        self.high = low if high is None else high
        self.fold_case = fold_case
        # The sets are built on first use: the table is built at import, most shapes never run.
        self.alphabet: frozenset[str] | None = None
        self.before: frozenset[str] = frozenset()
        self.after: frozenset[str] = frozenset()

    def _sets(self) -> frozenset[str]:
        """The alphabet as a set, building `before` and `after` with it the first time."""
        if self.alphabet is None:
            self.before = _set(self.before_spec, self.fold_case)
            self.after = _set(self.after_spec, self.fold_case)
            self.alphabet = _set(self.alphabet_spec, self.fold_case)
            if self.after and not self.alphabet <= self.after:
                raise ValueError("`after` must hold the whole alphabet")
        return self.alphabet

    def search(self, text: str, lowered: str) -> bool:
        """True when the shape occurs in `text` (`lowered` is `text.lower()`)."""
        seen = lowered if self.fold_case else text
        alphabet, high = self._sets(), self.high
        for prefix in self.prefixes:
            at = seen.find(prefix)
            while at != -1:
                if not (at and seen[at - 1] in self.before):
                    start = at + len(prefix)
                    end = start
                    limit = min(len(seen), start + high + 1)
                    while end < limit and seen[end] in alphabet:
                        end += 1
                    run = end - start
                    if run >= self.low:
                        if not self.after:
                            return True
                        if run <= high and not (end < len(seen) and seen[end] in self.after):
                            return True
                at = seen.find(prefix, at + 1)
        return False

    def regex(self) -> str:
        """The same shape as a regular expression (flags inline, every quantifier bounded)."""
        import re

        flags = "(?ai)" if self.fold_case else "(?a)"
        before = f"(?<!{_class(self.before_spec)})" if self.before_spec else ""
        prefixes = "|".join(re.escape(p) for p in self.prefixes)
        run = f"{_class(self.alphabet_spec)}{{{self.low},{self.high}}}"
        after = f"(?!{_class(self.after_spec)})" if self.after_spec else ""
        return f"{flags}{before}(?:{prefixes}){run}{after}"


class Chain:
    """A prefix, then runs of alphabets in order, matched without `re`.

    `xoxb-`, 8 to 14 digits, `-`, 8 to 100 of base62 is
    `Chain(("xoxb-",), ("0-9", 8, 14), "-", ("A-Za-z0-9-", 8, 100))`: each
    part is `(alphabet, low, high)` or a literal string. It matches where one of
    `prefixes` occurs (in lower case when `fold_case`), the `lead` runs (each
    `(alphabet, count)`, of fixed length) come just before it, the character
    before all that, if any, is not in `before`, each run follows in turn, and
    the character after the last, if any, is not in `after` (which, when given,
    holds the last run's whole alphabet, as for a `Shape`).

    Each run is taken greedily up to `high` and never given back. That is what
    the regular expression finds when a run of varying length is followed by a
    part whose alphabet it does not share (the run cannot end anywhere else),
    so a chain whose parts break that rule is refused on first use.
    """

    __slots__ = (
        "_lead",
        "_runs",
        "after",
        "after_spec",
        "before",
        "before_spec",
        "fold_case",
        "lead",
        "parts",
        "prefixes",
    )

    def __init__(
        self,
        prefixes: tuple[str, ...],
        *parts: str | tuple[str, int, int],
        before: str = "",
        after: str = "",
        lead: tuple[tuple[str, int], ...] = (),
        fold_case: bool = False,
    ) -> None:
        self.prefixes = tuple(p.lower() for p in prefixes) if fold_case else prefixes
        # A literal is a run of each of its characters, once.
        self.parts = tuple(
            run
            for part in parts
            for run in ([(ch, 1, 1) for ch in part] if isinstance(part, str) else [part])
        )
        self.before_spec, self.after_spec, self.lead = before, after, lead
        self.fold_case = fold_case
        self.before: frozenset[str] = frozenset()
        self.after: frozenset[str] = frozenset()
        self._lead: list[tuple[frozenset[str], int]] = []
        self._runs: list[tuple[frozenset[str], int, int]] | None = None

    def _sets(self) -> list[tuple[frozenset[str], int, int]]:
        """The runs with their alphabets as sets, built (and checked) the first time."""
        if self._runs is None:
            from itertools import pairwise

            runs = [(_set(spec, self.fold_case), low, high) for spec, low, high in self.parts]
            for (alphabet, low, high), (following, _, _) in pairwise(runs):
                if low < high and not alphabet.isdisjoint(following):
                    raise ValueError("a run of varying length shares characters with the next")
            self.before = _set(self.before_spec, self.fold_case)
            self.after = _set(self.after_spec, self.fold_case)
            if self.after and not runs[-1][0] <= self.after:
                raise ValueError("`after` must hold the last run's whole alphabet")
            self._lead = [(_set(spec, self.fold_case), count) for spec, count in self.lead]
            self._runs = runs
        return self._runs

    def search(self, text: str, lowered: str) -> bool:
        """True when the chain occurs in `text` (`lowered` is `text.lower()`)."""
        seen = lowered if self.fold_case else text
        runs = self._sets()
        for prefix in self.prefixes:
            at = seen.find(prefix)
            while at != -1:
                begin = self._lead_start(seen, at)
                if begin is not None and not (begin and seen[begin - 1] in self.before):
                    end = at + len(prefix)
                    for i, (alphabet, low, high) in enumerate(runs):
                        start = end
                        # With `after`, the last run is looked at one further: longer is no match.
                        longer = 1 if self.after and i == len(runs) - 1 else 0
                        limit = min(len(seen), start + high + longer)
                        while end < limit and seen[end] in alphabet:
                            end += 1
                        if not low <= end - start <= high:
                            break
                    else:
                        if not (end < len(seen) and seen[end] in self.after):
                            return True
                at = seen.find(prefix, at + 1)
        return False

    def _lead_start(self, seen: str, at: int) -> int | None:
        """Where the `lead` runs that end at `at` begin, or `None` when they are not there."""
        for alphabet, count in reversed(self._lead):
            if at < count or not alphabet.issuperset(seen[at - count : at]):
                return None
            at -= count
        return at

    def regex(self) -> str:
        """The same chain as a regular expression (flags inline, every quantifier bounded)."""
        return ("(?ai)" if self.fold_case else "(?a)") + self.body()

    def body(self) -> str:
        """`regex()` without its flags."""
        import re

        before = f"(?<!{_class(self.before_spec)})" if self.before_spec else ""
        lead = "".join(f"{_class(spec)}{{{count}}}" for spec, count in self.lead)
        prefixes = "|".join(re.escape(p) for p in self.prefixes)
        runs = "".join(f"{_class(spec)}{{{low},{high}}}" for spec, low, high in self.parts)
        after = f"(?!{_class(self.after_spec)})" if self.after_spec else ""
        return f"{before}{lead}(?:{prefixes}){runs}{after}"


class Either:
    """One of several chains (`AccountKey=` and 86 of base64, or `SharedAccessKey=` and 40 to 50)."""

    __slots__ = ("chains", "prefixes")

    def __init__(self, *chains: Chain) -> None:
        if len({c.fold_case for c in chains}) != 1:
            raise ValueError("the chains of an Either must fold case alike")
        self.chains = chains
        self.prefixes = tuple(dict.fromkeys(p for c in chains for p in c.prefixes))

    def search(self, text: str, lowered: str) -> bool:
        """True when one of the chains occurs in `text` (`lowered` is `text.lower()`)."""
        return any(chain.search(text, lowered) for chain in self.chains)

    def regex(self) -> str:
        """The same as one regular expression: the chains as alternatives."""
        flags = "(?ai)" if self.chains[0].fold_case else "(?a)"
        return flags + "(?:" + "|".join(chain.body() for chain in self.chains) + ")"
