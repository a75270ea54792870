"""One recall, start to end: rules, then notes and pages, ranked, fitted, rendered.

`recall(...)` is shared by the prompt hook and by `abcd rules --prompt`: the
hook passes the session's ledger and fill; the diagnostic passes an empty
ledger and the fill it was given, and prints every fact the `Outcome`
carries. The flow:

1. Load the rules (machine, then repository); the kill switch silences all.
2. Load items: project notes, machine notes, workspace pages, machine pages.
   A layer that cannot be read is a problem; the others still come back.
3. Narrower scope wins (a project note suppresses the machine note of the
   same id; a workspace page the machine page of the same name).
4. An item is a candidate when a recall word hits the prompt (the term rule).
   A machine note tied to another repository is not; git is asked for this
   repository's root only when a tied note hit.
5. Rank candidates by BM25F over every item in reach.
6. Rules first, whole domain blocks, then memory in ranked order, in the
   forms the bracket gives, all within the host's limit on a hook's output
   (`abcd.recall.budget`: 10,000 characters on Claude Code 2.1.197, counted
   as the host counts). When a note or page is waiting, the rules leave it a
   floor (a quarter of the limit). What did not fit is not recorded, so it
   comes back next prompt.

Pure apart from reading the declared places; it writes nothing.
"""

from __future__ import annotations

from abcd.errors import AbcdError, JournalBroken, TrustError
from abcd.recall import bitset
from abcd.recall.bm25f import Corpus, Doc, Scored, idf
from abcd.recall.budget import host_len
from abcd.recall.constants import HOST_CONTEXT_CHARS, K1, MEMORY_FLOOR_SHARE, TIE_EPSILON, B
from abcd.recall.index import EVERYWHERE, INDEX_FILE, IndexChanged
from abcd.recall.items import (
    WIDE,
    Item,
    Problem,
    read_machine_pages,
    read_project_notes,
    read_workspace_pages,
    what,
)
from abcd.recall.machine import IndexedNotes, machine_note, read_machine_notes
from abcd.recall.second import content, forward_of, skipped_why, widen
from abcd.recall.terms import Prompt, Term, scan, term_of, warm, words
from abcd.rules import load as load_rules
from abcd.rules import match as match_rules
from abcd.rules.render import fence, fit, render_domain
from abcd.trust.guarded import Checkout, CheckoutRefused

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Collection, Iterable, Iterator
    from typing import Any, Protocol

    from abcd.recall.index import Forward as IndexForward
    from abcd.recall.index import Index, Record
    from abcd.recall.index import Term as IndexTerm
    from abcd.recall.second import Judged
    from abcd.recall.stemcache import ReachTable, StemCache

    # What a ranked candidate refers to: a small layer's item scored by `Corpus` (breakdown and
    # all) or from the reach's table (the item), or an indexed machine note (its number).
    Ranked = Scored | Item | int
    # An item and the recall words of it that hit the prompt.
    Hit = tuple[Item, tuple[str, ...]]

    class Lazy(Protocol):
        """Where a candidate ranked without its text finds its item and per-term breakdown."""

        def item(self, ref: Any) -> tuple[Item, tuple[str, ...]]: ...

        def scored(self, ref: Any, item: Item) -> Scored: ...

    from abcd.repo import Repo
    from abcd.rules.loader import RuleSet
    from abcd.rules.match import Match
    from abcd.session.brackets import Bracket
    from abcd.session.ledger import Ledger
    from abcd.trust.guarded import Home

MEMORY_HEADING = "## MEMORY"
_INFINITY = float("inf")  # `math.inf`, without loading `math` on the prompt's path


class Candidate:
    """A ranked candidate and the form it takes: full, line, too large, does not fit, already sent.

    A machine note ranked through the index carries only its number and
    score until something asks for its item, hits or per-term breakdown:
    the record is read then, so a broad prompt reads the records of the
    notes the budget reaches, not of every candidate.
    """

    __slots__ = ("_hits", "_item", "_scored", "_source", "form", "rank", "score", "second")

    def __init__(
        self,
        item: Item | None,
        scored: Scored | None,
        rank: int,
        hits: tuple[str, ...] | None,
        source: tuple[Lazy, Any] | None = None,
        score: float | None = None,
    ) -> None:
        self._item = item
        self._scored = scored
        # The score it was ranked by (for an indexed note, from the postings; `scored` recomputes
        # it from the note's text with its per-term breakdown, to the same bits).
        self.score = score if score is not None else scored.score if scored is not None else 0.0
        self._hits = hits
        self._source = source
        self.rank = rank
        self.form = "does not fit"
        # How the second tier admitted it (no recall word hit it), else `None`.
        self.second: Judged | None = None

    def _load(self) -> None:
        assert self._source is not None
        lazy, ref = self._source
        self._item, self._hits = lazy.item(ref)

    @property
    def item(self) -> Item:
        if self._item is None:
            self._load()
        assert self._item is not None
        return self._item

    @property
    def hits(self) -> tuple[str, ...]:
        if self._hits is None:
            self._load()
        assert self._hits is not None
        return self._hits

    @property
    def scored(self) -> Scored:
        if self._scored is None:
            assert self._source is not None
            lazy, ref = self._source
            self._scored = lazy.scored(ref, self.item)
        return self._scored


class DomainChoice:
    """A matched rule domain and what became of it: full, short, already sent, left out."""

    __slots__ = ("form", "match")

    def __init__(self, match: Match, form: str) -> None:
        self.match = match
        self.form = form


class Outcome:
    """Everything one recall decided, for the hook's output and the diagnostic's report."""

    def __init__(self, bracket: Bracket, limit: int = HOST_CONTEXT_CHARS) -> None:
        self.bracket = bracket
        self.limit = limit  # the host's limit on what the hook prints, in its characters
        self.rules: RuleSet | None = None
        self.domains: list[DomainChoice] = []
        self.truncated_line = ""
        self._candidates: list[Candidate] = []
        # The candidates ranked after the take stopped, classified only when asked for (already
        # sent or does not fit: the take stops only once the full form is over), and how many
        # candidates there are in all.
        self._rest: Iterator[Candidate] | None = None
        self._count = 0
        self._open: IndexedNotes | None = None  # the index machine candidates are read from
        self.withheld: list[tuple[Item, str]] = []
        self.problems: list[Problem] = []
        self.rules_text = ""
        self.memory_text = ""
        self.machine_withheld = False  # the journal is broken: no machine note is read
        # The second tier's judgement of each item in reach no recall word hit (issue 16).
        self.second: dict[str, Judged] = {}
        self.second_skipped = ""  # why the second tier judged nothing at all, if it did not

    @property
    def candidates(self) -> list[Candidate]:
        """Every candidate in rank order, each with its form."""
        if self._rest is not None:
            self._candidates.extend(self._rest)
            self._rest = None
        return self._candidates

    @property
    def too_large(self) -> list[Candidate]:
        """The candidates set aside as larger than the whole budget (only the full form's take
        meets them, so the unclassified rest holds none)."""
        return [c for c in self._candidates if c.form == "too large"]

    def did_not_fit(self, most: int) -> tuple[list[Candidate], int]:
        """Up to `most` candidates that did not fit, in rank order, and how many candidates rank
        below the last one named (not classified, so some may have been sent before).

        The rest is classified only as far as the names need: a broad prompt's thousands of
        candidates are not read to name a few.
        """
        named: list[Candidate] = []
        at = 0
        while len(named) < most:
            if at == len(self._candidates):
                found = next(self._rest, None) if self._rest is not None else None
                if found is None:
                    self._rest = None
                    break
                self._candidates.append(found)
            if self._candidates[at].form == "does not fit":
                named.append(self._candidates[at])
            at += 1
        below = self._count - at if len(named) == most else 0
        return named, below

    @property
    def left_out(self) -> list[DomainChoice]:
        """The matched rule domains the limit left out."""
        return [d for d in self.domains if d.form == "left out"]

    def close(self) -> None:
        """Give back the index; a machine candidate not yet read cannot be read after this."""
        if self._open is not None:
            self._open.close()
            self._open = None

    def __enter__(self) -> Outcome:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    @property
    def text(self) -> str:
        return "\n\n".join(part for part in (self.rules_text, self.memory_text) if part)

    @property
    def injected(self) -> list[DomainChoice]:
        return [d for d in self.domains if d.form in ("full", "short")]

    @property
    def recalled(self) -> list[Candidate]:
        # Whatever came back was reached by the take, so the unclassified rest holds none of it.
        return [c for c in self._candidates if c.form in ("full", "line")]


# --- rendering -------------------------------------------------------------------


def render_full(item: Item) -> str:
    return f"### {item.key} {item.label}: {item.title}\n{fence(item.body)}"


def render_line(item: Item) -> str:
    return f"- {item.key} {item.label}: {item.title}"


def _cost(text: str) -> int:
    """A part's characters as the host counts them, and the newline that joins it."""
    return host_len(text) + 1


# --- loading ---------------------------------------------------------------------


def _load_items(
    home: Home | None,
    checkout: Checkout | None,
    outcome: Outcome,
    *,
    machine_notes: bool,
    cache: StemCache | None,
) -> list[Item]:
    items: list[Item] = []
    if checkout is not None and checkout.refused is not None:
        checkout = None  # named once, with the rules (`_fresh`): nothing in it is read
    if checkout is not None:
        try:
            items += read_project_notes(checkout, cache)
        except AbcdError as err:
            outcome.problems.append(Problem("note", f"project notes unreadable: {err}"))
    try:
        if machine_notes:
            items += read_machine_notes(home)
    except AbcdError as err:
        outcome.problems.append(Problem("note", f"machine notes unreadable: {err}"))
    if checkout is not None:
        pages, problems = read_workspace_pages(checkout, cache)
        items += pages
        outcome.problems += problems
    pages, problems = read_machine_pages(home, cache)
    items += pages
    outcome.problems += problems
    return items


def _suppress(items: list[Item], outcome: Outcome) -> list[Item]:
    """Narrower scope wins: drop a machine item whose key a repository item also has."""
    narrow = {i.key: i for i in items if i.layer != "machine"}
    if narrow.keys().isdisjoint([i.key for i in items if i.layer == "machine"]):
        return items  # nothing suppressed (a prompt's usual case: no item is asked twice)
    kept = []
    for item in items:
        twin = narrow.get(item.key) if item.layer == "machine" else None
        if twin is not None:
            outcome.withheld.append(
                (item, f"suppressed by a narrower scope (the {what(twin.kind, twin.layer)})")
            )
        else:
            kept.append(item)
    return kept


def _terms_of(words: set[str]) -> dict[str, Term | None]:
    return {word: term_of(word) for word in words}


class _Hits:
    """Which of an item's recall words hit the prompt (`terms` gives the words' terms): each
    distinct word of `items` is looked up once, then an item's words are filtered in C."""

    def __init__(
        self,
        items: list[Item],
        prompt: Prompt,
        terms: Callable[[set[str]], dict[str, Term | None]],
    ) -> None:
        distinct = prompt.distinct
        self.hitting = frozenset(
            word
            for word, term in terms(set().union(*(item.recall for item in items))).items()
            if term is not None and term[0] in distinct and prompt.hits(term)
        )

    def split(
        self, items: list[Item], outcome: Outcome
    ) -> tuple[list[Item], list[Hit], list[Item], list[Hit]]:
        """The items in reach untied (`reach`), those a word hit with their hits (`hitting`), the
        others in reach (`missed`, for the second tier), and the tied ones with their hits; an
        untied item without recall words or hits is withheld. One pass: a prompt asks it of
        every item in the small layers."""
        reach: list[Item] = []
        hitting: list[Hit] = []
        missed: list[Item] = []
        tied: list[Hit] = []
        withheld = outcome.withheld
        disjoint, hit = self.hitting.isdisjoint, self.hitting.__contains__
        for item in items:
            recall = item.recall
            if not recall:
                withheld.append((item, "no recall words"))
                continue
            hits = () if disjoint(recall) else tuple(filter(hit, recall))
            if item.root is not None:
                tied.append((item, hits))
                continue
            reach.append(item)
            if hits:
                hitting.append((item, hits))
            else:
                missed.append(item)
                withheld.append((item, "no word hit"))
        return reach, hitting, missed, tied


def _root(repo: Repo | None, ledger: Ledger | None, outcome: Outcome) -> str | None:
    if repo is None:
        return None
    top = str(repo.top)
    if ledger is not None and top in ledger.roots:
        return ledger.roots[top]
    try:
        return repo.root_commit
    except AbcdError as err:
        outcome.problems.append(Problem("note", f"notes tied to this repository withheld: {err}"))
        return None


# --- the recall ------------------------------------------------------------------


class _Reach(Corpus):
    """Every item in reach: the small layers as documents, plus the indexed machine notes as counts.

    The indexed notes of the groups in reach (everywhere, and this
    repository's when its root is known) count in N, the lengths and n_t
    through the index's per-group figures, less the notes that are not in
    reach after all (removed since the index, or suppressed by a narrower scope).
    """

    def __init__(
        self,
        docs: list[Doc],
        indexed: IndexedNotes | None,
        groups: list[str],
        minus: list[IndexForward],
        table: ReachTable | None = None,
    ) -> None:
        """`docs` are the small layers' items in reach, or, with `table` (their figures from the
        stem cache), none."""
        super().__init__(docs)
        self._indexed, self._groups, self._minus = indexed, groups, minus
        self._table = table
        self._held: dict[str, int] = {}
        n, total = (table.n, table.total) if table is not None else (self.n, self.total)
        if indexed is not None:
            figures = [indexed.index.groups.get(g, (0, 0)) for g in groups]
            n += sum(count for count, _ in figures) - len(minus)
            total += sum(length for _, length in figures) - sum(f[0] for f in minus)
        self.n = n
        self.avg_len = total / n if total and n else 1.0

    def admit(self, keys: set[str]) -> None:
        self.keys = self.keys | keys

    def holding(self, terms: Collection[str]) -> dict[str, int]:
        """As `Corpus.holding`; each term is counted once per recall however often it is asked."""
        missing = [term for term in terms if term not in self._held]
        if missing:
            self._held.update(self._count(missing))
        return {term: self._held[term] for term in terms}

    def _count(self, terms: Collection[str]) -> dict[str, int]:
        table = self._table
        found = super().holding(terms) if table is None else table.held(terms)
        if self._indexed is None:
            return found
        for group in self._groups:
            for term, n in self._indexed.index.df(group, terms).items():
                found[term] += n
        if self._minus:  # the notes counted above that are not in reach, by their term numbers
            numbers = {entry[0]: term for term, entry in self._indexed.index.terms(terms).items()}
            for _, held, _ in self._minus:
                for number in numbers.keys() & set(held):
                    found[numbers[number]] -= 1
        return found


def _open_index(home: Home | None, outcome: Outcome) -> IndexedNotes | None:
    """The machine index, or `None` to fold the view instead (slower, never wrong)."""
    if home is None:
        return None
    try:
        return IndexedNotes(home)
    except JournalBroken as err:  # not a damaged cache: nothing of the machine's may be sent
        outcome.problems.append(Problem("note", f"machine notes withheld: {err}"))
        outcome.machine_withheld = True
        return None
    except IndexChanged as err:
        outcome.problems.append(Problem("note", str(err)))
        return None
    except TrustError as err:
        if err.shown_path.endswith(INDEX_FILE):
            outcome.problems.append(Problem("note", f"machine index refused: {err}"))
        return None  # a refused view is named by the fold that follows
    except (AbcdError, OSError, ValueError, KeyError, TypeError, EOFError):
        return None  # absent, stale or damaged


def recall(
    prompt_text: str,
    *,
    home: Home | None,
    repo: Repo | None,
    bracket: Bracket,
    ledger: Ledger | None = None,
    use_index: bool = True,
    stems: StemCache | None = None,
    limit: int = HOST_CONTEXT_CHARS,
) -> Outcome:
    """Decide what this prompt brings back; `ledger` `None` means a fresh session.

    The checkout's layer (`.abcd/`) is opened once, checked (a checkout another
    account owns is refused and named), and closed before this returns.
    """
    checkout = Checkout.open(repo.top) if repo is not None else None
    try:
        return _recall_in(
            prompt_text, home, repo, checkout, bracket, ledger, use_index, stems, limit
        )
    finally:
        if checkout is not None:
            checkout.close()


def _recall_in(
    prompt_text: str,
    home: Home | None,
    repo: Repo | None,
    checkout: Checkout | None,
    bracket: Bracket,
    ledger: Ledger | None,
    use_index: bool,
    stems: StemCache | None,
    limit: int,
) -> Outcome:
    """`recall`, its checkout open.

    `limit` is the host's limit on the hook's whole output, in its
    characters (`abcd.recall.budget.context_limit`). With `use_index`,
    machine notes come through `memory.idx` when it is usable (the hook);
    without it every machine note is read, so each one can be listed with
    the reason it was withheld (the diagnostic). `stems`,
    when given, supplies the stems of items stemmed at an earlier prompt (the
    hook saves it afterwards; the engine itself writes nothing).
    """
    rules = load_rules(home, checkout, term=stems.term if stems is not None else term_of)
    prompt = Prompt(scan(prompt_text))
    outcome = _fresh(bracket, rules, limit)
    indexed = _open_index(home, outcome) if use_index else None
    try:
        _recall(prompt, home, repo, checkout, rules, bracket, ledger, indexed, outcome, stems)
    except _INDEX_DAMAGE as err:
        if indexed is None:
            raise
        # An index that opened but does not read through: fold the view, as without one.
        indexed.close()
        outcome = _fresh(bracket, rules, limit)
        outcome.problems.append(
            Problem(
                "note",
                f"machine index unreadable ({type(err).__name__}: {err}); read the view instead",
            )
        )
        _recall(prompt, home, repo, checkout, rules, bracket, ledger, None, outcome, stems)
        return outcome
    except BaseException:
        if indexed is not None:
            indexed.close()
        raise
    if indexed is not None and outcome._open is None:
        indexed.close()  # else kept open: candidates read their records from it when asked
    return outcome


# What a damaged index that still opened raises while it is read.
_INDEX_DAMAGE = (OSError, ValueError, EOFError, KeyError, TypeError, IndexError, AttributeError)


def _fresh(bracket: Bracket, rules: RuleSet, limit: int) -> Outcome:
    outcome = Outcome(bracket, limit)
    outcome.rules = rules
    for problem in rules.problems:
        if isinstance(problem, CheckoutRefused):  # one line for the whole layer
            text = f"{problem}; this checkout's rules, notes and pages are not read"
            outcome.problems.append(Problem("checkout", text))
        else:
            outcome.problems.append(Problem("rules", str(problem)))
    return outcome


def _recall(
    prompt: Prompt,
    home: Home | None,
    repo: Repo | None,
    checkout: Checkout | None,
    rules: RuleSet,
    bracket: Bracket,
    ledger: Ledger | None,
    indexed: IndexedNotes | None,
    outcome: Outcome,
    stems: StemCache | None = None,
) -> Outcome:
    loaded = _load_items(
        home,
        checkout,
        outcome,
        machine_notes=indexed is None and not outcome.machine_withheld,
        cache=stems,
    )
    if indexed is not None:
        loaded += [i for i in indexed.extra.values()]
    items = _suppress(loaded, outcome)
    if rules.disabled:
        silenced = f"silenced by the kill switch ({', '.join(rules.disabled_by)})"
        outcome.withheld += [(item, silenced) for item in items]
        return outcome

    blocks = _rule_blocks(match_rules(rules, prompt), bracket, ledger, outcome)

    # idf counts every item in reach, tied notes of this repository included whether or not one
    # hit, so the root is needed whenever tied notes exist (in the index or among the items); the
    # session start records it, so the hook asks git only when the session did not
    # (docs/decisions.md). It is asked once, here.
    has_tied = indexed is not None and any(g != EVERYWHERE for g in indexed.index.groups)
    tied_items = any(i.root is not None and i.recall for i in items)
    root = _root(repo, ledger, outcome) if has_tied or tied_items else None

    # Machine notes through the index: the notes holding a recall term the prompt hits.
    narrow = [i.key for i in items if i.kind == "note" and i.layer != "machine"]  # file order
    narrow_ids = set(narrow)
    found = 0  # the machine's candidates, a bitset (`abcd.recall.bitset`)
    if indexed is not None:
        # Only the groups that can come back here: a note tied to another repository is never read.
        found = indexed.index.candidates(prompt, {EVERYWHERE, root or EVERYWHERE})
        # A note removed since the index, shadowed by a newer copy in the journal's tail, or
        # suppressed by a project note of the same id is not a candidate.
        # (In an order their sources fix, so the stem cache keys them without sorting them.)
        set_aside = [*sorted(indexed.gone | indexed.extra.keys()), *narrow]
        numbered = (
            stems.numbers(indexed.index, set_aside)
            if stems is not None
            else indexed.index.numbers_of(set_aside)
        )
        set_aside_bits = bitset.of(numbered.values(), indexed.index.count)
        found &= ~set_aside_bits

    hits_in = _Hits(items, prompt, stems.terms_of if stems is not None else _terms_of)
    reach, hitting, missed, tied = hits_in.split(items, outcome)
    for item, hits in tied:
        if root is not None and item.root == root:
            reach.append(item)
            if hits:
                hitting.append((item, hits))
                continue
            missed.append(item)
        if not hits:
            outcome.withheld.append((item, "no word hit"))
        elif repo is None:
            outcome.withheld.append((item, "tied to a repository, and this folder is in none"))
        else:
            outcome.withheld.append((item, "tied to another repository"))

    if not hitting and not found and not content(prompt):
        _take(outcome, ledger, blocks, iter(()))  # nothing to rank, nor to judge
        return outcome
    table = None
    if stems is not None:
        # The reach's figures and the prompt's columns, from the cache.
        table = stems.table(reach, prompt.distinct)
        docs = {}
    else:
        # One pass over the reach's text (in C: translate, split, set difference) stems new words at once.
        warm(words("\n".join(t for item in reach for t in (item.title, item.body))))
        docs = {item.key: item.doc() for item in reach}
    by_key = {item.key: item for item in reach} if table is None else {}  # `Corpus`'s candidates
    groups = [EVERYWHERE, *([root] if root is not None else [])]
    minus: list[IndexForward] = []
    if indexed is not None:
        # (`numbered` was looked up above: the index's numbers of every id set aside.)
        held = {
            note_id: numbered[note_id]
            for note_id in indexed.gone | narrow_ids
            if note_id in numbered  # held by the index (a revised note too: its old record)
        }
        for note_id in sorted(held):
            record = indexed.index.record(held[note_id])
            if (record[4] or EVERYWHERE) in groups:
                minus.append(indexed.index.forward(held[note_id]))
    corpus = _Reach(list(docs.values()), indexed, groups, minus, table)
    # The second tier (issue 16): items no recall word hit, judged on the prompt's content words.
    wide, wide_notes, outcome.second = widen(
        prompt,
        missed,
        table.forward_if if table is not None else forward_of,
        corpus.holding,
        corpus.n,
        corpus.avg_len,
        indexed.index if indexed is not None else None,
        found | set_aside_bits if indexed is not None else 0,
        groups,
    )
    outcome.second_skipped = skipped_why(prompt)
    if wide:
        admitted = {item.key for item in wide}
        outcome.withheld = [(i, why) for i, why in outcome.withheld if i.key not in admitted]
        hitting += [(item, ()) for item in wide]
    if wide_notes:
        assert indexed is not None
        found |= bitset.of(wide_notes, indexed.index.count)
    if not hitting and not found:
        _take(outcome, ledger, blocks, iter(()))
        return outcome
    hits_of = {item.key: hits for item, hits in hitting}
    small = _Small(corpus, prompt)
    scored: list[tuple[float, Scored | Item]]
    if table is not None:
        scored = small.score([item for item, _ in hitting], table)
    else:
        breakdowns = corpus.score([docs[item.key] for item, _ in hitting], prompt.distinct)
        scored = [(s.score, s) for s in breakdowns]
    machine = None
    ranked_numbers: list[tuple[float, int]] = []
    best_first = None
    if indexed is not None and found:
        machine = _Machine(indexed.index, prompt, corpus)
        if found.bit_count() >= PRUNE_FROM:
            best_first = _BestFirst(machine, found)
        else:
            ranked_numbers = machine.score(bitset.numbers(found))
        outcome._open = indexed

    def candidate(entry: tuple[float, Ranked], rank: int) -> Candidate:
        score, ref = entry
        if isinstance(ref, int):
            assert machine is not None
            cand = Candidate(None, None, rank, None, (machine, ref), score)
            cand.second = wide_notes.get(ref)
            return cand
        if isinstance(ref, Scored):  # scored by `Corpus`, breakdown and all
            cand = Candidate(by_key[ref.key], ref, rank, hits_of[ref.key])
        else:  # scored from the reach's table: the per-term breakdown is worked out if asked for
            cand = Candidate(ref, None, rank, hits_of[ref.key], (small, ref.key), score)
        if not hits_of[ref.key]:
            cand.second = outcome.second.get(ref.key)
        return cand

    ordered = _ranked(scored, ranked_numbers, machine, best_first)
    outcome._count = len(scored) + found.bit_count()
    _take(
        outcome,
        ledger,
        blocks,
        (candidate(ref, rank) for rank, ref in enumerate(ordered, start=1)),
    )
    return outcome


class _Small:
    """The small layers' candidates scored from the stem cache's table of the reach (no stems
    decoded but the prompt's)."""

    def __init__(self, corpus: _Reach, prompt: Prompt) -> None:
        self.corpus, self.prompt = corpus, prompt

    def score(self, items: list[Item], table: ReachTable) -> list[tuple[float, Scored | Item]]:
        """Each item's score, the very figure `Corpus.score` gives: term by term in sorted order
        (the order `Corpus` adds an item's parts in), each holder's part added to its score."""
        at = table.at
        numbers = [at[item.stem_key or item.signature()] for item in items]
        avg = self.corpus.avg_len
        norms = [K1 * (1.0 - B + B * table.lengths[no] / avg) for no in numbers]
        scores = [0.0] * len(items)
        terms = sorted(table.columns)
        n, holding = self.corpus.n, self.corpus.holding(terms)
        position: dict[int, int] | None = None
        for term in terms:
            c = idf(n, holding[term])
            column = table.columns[term]
            if len(column) * SPARSE_SHARE >= len(items):  # one pass over every candidate
                scores = [
                    s + c * w / (w + norm) if w is not None else s
                    for s, w, norm in zip(scores, map(column.get, numbers), norms, strict=True)
                ]
                continue
            # A term few items hold: only its holders among the candidates get their part (the
            # same sum to the bit: a candidate without the term gets none either way).
            if position is None:
                position = dict(zip(numbers, range(len(numbers)), strict=True))
            _add_to_holders(scores, position, column, c, norms)
        return list(zip(scores, items, strict=True))

    def item(self, key: str) -> tuple[Item, tuple[str, ...]]:
        raise AssertionError("a small layer's candidate carries its item")  # pragma: no cover

    def scored(self, key: str, item: Item) -> Scored:
        return _breakdown(self.corpus, self.prompt, item)


def _add_to_holders(
    scores: list[float],
    position: dict[int, int],
    weights: dict[int, int],
    c: float,
    norms: list[float],
) -> None:
    """Add a term's part (idf `c`, weighted counts `weights` by number) to the score of each
    candidate holding it (`position`: a candidate's number -> its place in `scores` and `norms`),
    as a pass over every candidate would: the rest get none."""
    for no in weights.keys() & position.keys():
        i, w = position[no], weights[no]
        scores[i] += c * w / (w + norms[i])


# `_Small.score` adds a term's parts holder by holder when fewer than one candidate in this many
# holds it (a dict look-up a holder costs about what this many candidates' pass costs), else in one
# pass over every candidate.
SPARSE_SHARE = 4


# Past this many terms many notes hold, a prompt's candidates are scored note by note (a read each)
# rather than term by term (a pass over every candidate for each such term).
TERM_AT_A_TIME_MAX = 32


class _Machine:
    """The indexed machine notes of one recall, scored from the index's postings.

    A note's record (its text) is read only when its candidate is asked for
    its item: the notes the budget reaches, the diagnostic's every one.
    """

    def __init__(self, index: Index, prompt: Prompt, corpus: _Reach) -> None:
        self.index, self.prompt, self.corpus = index, prompt, corpus
        self._records: dict[int, Record] = {}
        # The query terms the index knows, their idf in this reach, the order their parts are
        # added in, the reach's mean length and every note's length: worked out once.
        self.known = index.terms(prompt.distinct)
        holding = corpus.holding(self.known)
        self.idf_of = {stem: idf(corpus.n, holding[stem]) for stem in self.known}
        self.order = sorted(self.known)
        self.avg = corpus.avg_len
        self.lengths = index.lengths()
        self._postings: dict[str, Any] = {}

    def postings(self, stem: str) -> Any:
        """A query term's postings, read once for this recall."""
        weights = self._postings.get(stem)
        if weights is None:
            weights = self._postings[stem] = self.index.postings(self.known[stem])
        return weights

    def dense(self) -> list[str]:
        """The query terms with dense postings (and impacts), in the order parts are added."""
        return [stem for stem in self.order if self.known[stem][3]]

    def term_at_a_time(self) -> bool:
        """Whether candidates are scored term by term (else note by note: see `score`)."""
        return len(self.dense()) <= TERM_AT_A_TIME_MAX

    def score(self, numbers: list[int]) -> list[tuple[float, int]]:
        """`(score, note no)` for each note: the very figures `Corpus.score` gives.

        The idf of each query term the index knows, and each note's length
        norm, are computed once. Then, term by term in the sorted order of
        their stems (the order `Corpus` adds them in), each note's part is
        added to its score: for a term many notes hold, in one pass over every
        candidate's weight gathered from its dense postings (`map` or `itemgetter`, in
        C); for a rare one, only for the candidates among its holders. A note
        that lacks a term gets no part for it, as in `Corpus`. A prompt with
        more common terms than `TERM_AT_A_TIME_MAX` is scored note by note from
        the forward records instead, which costs a read a note but nothing a
        term.
        """
        known, idf_of, order, avg = self.known, self.idf_of, self.order, self.avg
        lengths = self.lengths
        norms = [K1 * (1.0 - B + B * length / avg) for length in map(lengths.__getitem__, numbers)]
        if not self.term_at_a_time():
            return self._note_by_note(numbers, norms, order, known, idf_of)
        scores = [0.0] * len(numbers)
        gather: Callable[[Any], Iterable[int]]
        if len(numbers) >= GATHER_FROM:
            from operator import itemgetter  # a module to import: worth it only for many notes

            gather = itemgetter(*numbers)
        else:
            gather = lambda column: map(column.__getitem__, numbers)  # noqa: E731
        position: dict[int, int] | None = None
        for stem in order:
            c = idf_of[stem]
            weights = self.postings(stem)
            if known[stem][3]:  # dense: every candidate's weight, 0 where it lacks the term
                scores = [
                    s + c * w / (w + norm) if w else s
                    for s, w, norm in zip(scores, gather(weights), norms, strict=True)
                ]
                continue
            if position is None:
                position = {no: i for i, no in enumerate(numbers)}
            _add_to_holders(scores, position, weights, c, norms)
        return list(zip(scores, numbers, strict=True))

    def _note_by_note(
        self,
        numbers: list[int],
        norms: list[float],
        order: list[str],
        known: dict[str, IndexTerm],
        idf_of: dict[str, float],
    ) -> list[tuple[float, int]]:
        """The same scores from each note's forward record, its terms added in the same order.

        A pasted log holds hundreds of terms most notes share: a note's held query terms are
        put in that order by their places, and each one's weight looked up in the note's terms
        made a table once (its first, as `tuple.index` would find it), not searched for."""
        place = {known[stem][0]: i for i, stem in enumerate(order)}
        term_at = [known[stem][0] for stem in order]
        idfs = [idf_of[stem] for stem in order]
        query = frozenset(place)
        forward = self.index.forward
        out = []
        for no, norm in zip(numbers, norms, strict=True):
            _, ids, weights = forward(no)
            total = 0.0
            held = query.intersection(ids)
            if held:
                weight_of = dict(zip(reversed(ids), reversed(weights), strict=True))
                for i in sorted(map(place.__getitem__, held)):
                    w = weight_of[term_at[i]]
                    total += idfs[i] * w / (w + norm)
            out.append((total, no))
        return out

    def record(self, no: int) -> Record:
        record = self._records.get(no)
        if record is None:
            record = self._records[no] = self.index.record(no)
        return record

    def tie_keys(self, no: int) -> tuple[int, str, str]:
        record = self.record(no)
        return WIDE, record[5], record[0]

    def item(self, no: int) -> tuple[Item, tuple[str, ...]]:
        record = self.record(no)
        item = machine_note(*record[:6], origin=record[7])
        hits = tuple(
            word
            for word, term in zip(record[3], record[6], strict=True)
            if term and self.prompt.hits(term)
        )
        return item, hits

    def scored(self, no: int, item: Item) -> Scored:
        return _breakdown(self.corpus, self.prompt, item)


# From this many notes on, `_Machine.score` gathers a dense term's weights with `itemgetter` (its
# module costs a fresh process a fraction of a millisecond to import; `map` is a little slower a note).
GATHER_FROM = 4096
# From this many machine candidates on, they are ranked best first (`_BestFirst`): below it,
# scoring them all costs less than the rounds.
PRUNE_FROM = 512
# A round of `_BestFirst` lowers the threshold to this share of the last round's, or only to its
# aim, the score of the candidate this many places down the ranked hand: the hand holds only the
# candidates read so far, so an aim is often too low, and reading too far costs more than a round.
_SHARE = 0.9
_AIM = 48
# Every round lowers the threshold by at least this share of the ceiling: at zero, every
# candidate is read.
_STEP = 0.02
# A note's bound is counted in units of this share of the ceiling, each term's rounded up; a prompt
# of many dense terms (a pasted log: a note holds dozens of them, each rounded up by a unit) counts
# in `_UNITS_A_TERM` units a term at least: the rounding lifts a bound by at most a twenty-fifth of
# a dense term's mean best part for each term the note holds (seventeenth round).
_UNITS = 200
_UNITS_A_TERM = 25
# Up to this many candidates holding a sparse query term are all scored in the first round (as
# cheap as bounding them, and the rounds start lower); past it, each one's bound adds its own parts
# for those terms (a pasted log holds hundreds of rare words: eighteenth round).
_SPARSE_FIRST_MAX = 128
# A bound is raised by this share of itself: the parts are added in one fixed order and IEEE
# arithmetic is monotone, so it already holds to the bit; the margin is insurance, and free.
_SLACK = 1e-12


class _BestFirst:
    """The machine's candidates, scored best first, as far as the take asks (issue 13).

    A note's part of a score for a term falls as its length grows and rises
    with its weighted count, so no holder of a dense term has a part above
    the best of its group (holders by weighted count, `IMPACT_GROUPS`): the
    best, over the group's weighted counts, of the part of the shortest
    holder with that count (kept in the index), whatever the reach's idf and
    mean length. A note's bound is the sum of its groups' bests over the
    dense query terms it holds, counted in whole units rounded up, added for every
    note at once as bit planes of the index's bitsets (integers: the adding
    runs in C). Each round lowers a threshold (by `_SHARE`, or less, to the
    score `_AIM` places down the ranked hand), reads the candidates whose bound
    reaches it and were not read, scores them exactly as `_Machine.score`
    does, and says that every candidate not read scores below it. A sparse
    term (held by fewer than one note in `DENSE_SHARE`) keeps no groups: its
    holders' parts are worked out from its postings and their lengths, each
    rounded up to whole units and added to what the planes count for the
    holder, and a holder is read in the first round whose threshold its bound
    reaches (eighteenth round: before, every holder of a sparse term was read
    in the first round, ~15 us each, and a pasted log holds hundreds of rare
    words). `_ranked` gives a group only once its top is above that bound by
    more than `TIE_EPSILON`, so what is given is what ranking every candidate
    gives: a prompt whose best candidates stand out reads few, and one of
    many words of about equal weight reads most (then all at once, which
    costs what scoring every candidate costs).
    """

    def __init__(self, machine: _Machine, found: int) -> None:
        """`found`: the candidates, a bitset (`abcd.recall.bitset`)."""
        self.machine, self.found = machine, found
        self.seen = 0  # the candidates scored, a bitset
        self.done = False
        self.bound = _INFINITY
        count = machine.index.count
        dense = machine.dense()
        groups: dict[str, list[tuple[int, float]]] = {}  # per term: (holders, their best part)
        self._ceiling = 0.0
        for stem in dense:  # the order the parts of a score are added in
            c = machine.idf_of[stem]
            groups[stem] = [
                (bits, max(self._part(c, w, length) for w, length in shortest.items()))
                for bits, shortest in machine.index.impacts(machine.known[stem])
            ]
            self._ceiling += max((best for _, best in groups[stem]), default=0.0)
        # A sparse term's few holders have their own parts, from its postings and their lengths,
        # counted in the dense terms' units (in their own when the prompt holds no dense term), so
        # a prompt without sparse terms is ranked as before them.
        sparse = self._sparse_holders(found)
        held = {no for _, _, nos in sparse for no in nos}
        self._first = 0  # the holders of a sparse term, when read in the first round: a bitset
        if len(held) <= _SPARSE_FIRST_MAX:  # few: read at once, as cheap as bounding them
            self._first, sparse = bitset.of(held, count), []
        parts = self._sparse_parts(sparse)
        if self._ceiling <= 0:
            self._ceiling = sum(max(term) for term, _ in parts)
        self._units = max(_UNITS, _UNITS_A_TERM * len(dense))
        self._unit = self._ceiling / self._units if self._ceiling > 0 else 1.0
        extra = self._sparse_units(parts)  # units: the holders, each units a bitset
        most = self._units + len(dense) + 1 + max(extra, default=0)
        self._mask = (1 << count) - 1
        self._planes = [0] * most.bit_length()
        planes = len(self._planes)
        for stem in dense:  # a holder is in one group of a term: its bound adds that best
            units_of = [(int(best / self._unit) + 1, bits) for bits, best in groups[stem]]
            bitset.add_planes(self._planes, _addend(units_of, planes))
        if extra:  # each holder of a sparse term: its parts rounded up, all terms at once
            bitset.add_planes(self._planes, _addend(extra.items(), planes))
        self._read = 0  # the notes whose bound reached a threshold, as a bitset
        # The rounds start from the highest bound any note has (the ceiling sums the terms' bests,
        # which few notes hold all of; a rare term's part may pass it): a binary search over the
        # counts, in C.
        low, high = 0, 2 ** len(self._planes)
        while high - low > 1:
            mid = (low + high) // 2
            if bitset.at_least(self._planes, mid, self._mask):
                low = mid
            else:
                high = mid
        share = (low + 1) / self._units
        self._share = share if extra else min(1.0, share)

    def _sparse_holders(self, found: int) -> list[tuple[float, dict[int, int], list[int]]]:
        """For each sparse query term any candidate holds: its idf, its postings, and the
        candidates among its holders."""
        machine = self.machine
        marks = bitset.holding(found, machine.index.count)
        out = []
        for stem in machine.order:
            if machine.known[stem][3]:
                continue
            weight_of = machine.postings(stem)
            # `bitset.has`, written out: a call a holder would cost more than the test.
            nos = [no for no in weight_of if marks[no >> 3] >> (no & 7) & 1]
            if nos:
                out.append((machine.idf_of[stem], weight_of, nos))
        return out

    def _sparse_parts(
        self, sparse: list[tuple[float, dict[int, int], list[int]]]
    ) -> list[tuple[list[float], list[int]]]:
        """Each sparse term's holders' parts of their scores, as `_Machine.score` adds them, and
        the holders."""
        lengths, avg = self.machine.lengths, self.machine.avg
        # `_part`'s figure, written out: a call a holder would cost more than the rest.
        return [
            (
                [
                    c * w / (w + K1 * (1.0 - B + B * length / avg))
                    for w, length in zip(
                        map(weight_of.__getitem__, nos), map(lengths.__getitem__, nos), strict=True
                    )
                ],
                nos,
            )
            for c, weight_of, nos in sparse
        ]

    def _sparse_units(self, sparse: list[tuple[list[float], list[int]]]) -> dict[int, int]:
        """Each holder of a sparse query term's parts, each rounded up to whole units as a dense
        term's best is, summed: the holders by that sum, each sum's holders a bitset."""
        units: dict[int, int] = {}
        unit = self._unit
        for parts, nos in sparse:
            for no, part in zip(nos, parts, strict=True):
                units[no] = units.get(no, 0) + int(part / unit) + 1
        by_sum: dict[int, list[int]] = {}
        for no, total in units.items():
            by_sum.setdefault(total, []).append(no)
        count = self.machine.index.count
        return {total: bitset.of(nos, count) for total, nos in by_sum.items()}

    def _part(self, c: float, w: int, length: int) -> float:
        """A part of a score: `_Machine.score`'s figure, computed the same way."""
        norm = K1 * (1.0 - B + B * length / self.machine.avg)
        return c * w / (w + norm)

    def more(self, aim: float | None) -> list[tuple[float, int]]:
        """One more round: `(score, note no)` of the candidates it read, and `bound` lowered to
        about `aim` (`None`: by a share)."""
        new, self._first = self._first, 0
        wanted = self._share * _SHARE  # a round lowers the threshold by a share at most,
        if aim is not None and self._ceiling > 0:  # or only to the aim, if that is higher
            wanted = max(wanted, aim / self._ceiling)
        share = self._share = min(wanted, self._share - _STEP)
        threshold = self._ceiling * share
        units = int(share * self._units)  # a bound below this many units is below the threshold
        if units <= 0:
            new = self.found
        else:
            reached = bitset.at_least(self._planes, units, self._mask)
            new |= reached & (self._mask ^ self._read)
            self._read |= reached
        new &= self.found & ~self.seen
        self.seen |= new
        self.done = units <= 0 or self.seen == self.found
        self.bound = -_INFINITY if self.done else threshold + threshold * _SLACK
        return self.machine.score(bitset.numbers(new)) if new else []


def _addend(units_of: Iterable[tuple[int, int]], planes: int) -> list[int]:
    """Bit planes (`planes` of them) that add `units` to every note of `bits`, for each
    `(units, bits)` of `units_of` (their sets apart: a note is in one of them)."""
    addend = [0] * planes
    for units, bits in units_of:
        for k in range(planes):
            if units >> k & 1:
                addend[k] |= bits
    return addend


def _breakdown(corpus: _Reach, prompt: Prompt, item: Item) -> Scored:
    """An item's score with its per-term breakdown (the diagnostic's, the tests'), stemmed from
    its text as `Corpus.score` reads it: the same figure its candidate was ranked by."""
    corpus.admit({item.key})
    return corpus.score([item.doc()], prompt.distinct)[0]


def _ranked(
    scored: list[tuple[float, Scored | Item]],
    machine_scores: list[tuple[float, int]],
    machine: _Machine | None,
    best_first: _BestFirst | None = None,
) -> Iterator[tuple[float, Ranked]]:
    """Every candidate in rank order, lazily: `bm25f.rank`'s order, ties resolved only where they are.

    Scores within `TIE_EPSILON` of a group's top tie and break by scope,
    recency and key; a machine note's keys are read only when it ties.
    With `best_first`, the machine's candidates come in as they are needed:
    a group is given only once its top is more than `TIE_EPSILON` above the
    bound on every candidate not yet scored, so no such candidate could be
    in it or above it, and the order is the one ranking every candidate gives.
    """
    entries: list[tuple[float, Ranked]] = [*scored, *machine_scores]
    if best_first is not None:
        entries += best_first.more(None)
    entries.sort(key=_first, reverse=True)

    def keys(ref: Ranked) -> tuple[int, str, str]:
        if isinstance(ref, int):
            assert machine is not None
            return machine.tie_keys(ref)
        return ref.scope_rank, ref.recency, ref.key

    i, end = 0, len(entries)
    while True:
        while best_first is not None and not best_first.done:
            if i < end and entries[i][0] - best_first.bound > TIE_EPSILON:
                break
            aim = entries[i + _AIM][0] if end - i > _AIM else None
            entries = [*entries[i:], *best_first.more(aim)]
            entries.sort(key=_first, reverse=True)
            i, end = 0, len(entries)
        if i == end:
            return
        top = entries[i][0]
        j = i + 1
        while j < end and top - entries[j][0] <= TIE_EPSILON:
            j += 1
        if j == i + 1:
            yield entries[i]
        else:
            group = [(keys(entry[1]), entry) for entry in entries[i:j]]
            group.sort(key=lambda g: g[0][2])
            group.sort(key=lambda g: g[0][1], reverse=True)
            group.sort(key=lambda g: g[0][0])
            for _, entry in group:
                yield entry
        i = j


def _first(entry: tuple[float, object]) -> float:
    return entry[0]


def _rule_blocks(
    matches: list[Match], bracket: Bracket, ledger: Ledger | None, outcome: Outcome
) -> list[tuple[str, str]]:
    """Each matched domain's block in the bracket's form, but those already sent this session."""
    short = bracket.rules_form == "short"
    blocks: list[tuple[str, str]] = []
    for match in matches:
        domain = match.domain
        if ledger is not None and ledger.domain_sent(domain.name, domain.signature()):
            outcome.domains.append(DomainChoice(match, "already sent"))
            continue
        outcome.domains.append(DomainChoice(match, "short" if short else "full"))
        blocks.append((domain.name, render_domain(domain, short=short)))
    return blocks


def _fit_rules(outcome: Outcome, blocks: list[tuple[str, str]], budget: int) -> int:
    """Rules first: whole domain blocks within `budget`. Returns the characters they print."""
    if not blocks:
        return 0
    fitted = fit(blocks, budget, outcome.limit)
    left_out = set(fitted.left_out)
    for choice in outcome.domains:
        if choice.match.domain.name in left_out:
            choice.form = "left out"
    if left_out:
        outcome.truncated_line = fitted.text.rstrip("\n").rsplit("\n", 1)[-1]
    outcome.rules_text = fitted.text.rstrip("\n")
    return host_len(outcome.rules_text)


# What the hook prints around the rules and the memory: the blank line between them, and the
# newline that ends its output.
_BETWEEN = 2
_END = 1


def _within(bound: int | None, left: int) -> int:
    """A form's budget (`None`: no bound of its own) within what is left of the limit."""
    return left if bound is None else min(bound, left)


def _take(
    outcome: Outcome,
    ledger: Ledger | None,
    blocks: list[tuple[str, str]],
    ranked: Iterator[Candidate],
) -> None:
    """Rules, then memory in ranked order in the bracket's forms, all within `outcome.limit`.

    The whole printed text (rules, the truncation line, the blank line, the
    `## MEMORY` heading, each item, the final newline) stays within the
    host's limit, counted as the host counts. The rules are fitted when the
    first candidate that was not already sent comes up: then they stop short
    of a floor kept for memory (`MEMORY_FLOOR_SHARE` of the limit, and never
    less than that candidate's line), else they may use it all. In the full
    form an item whose block alone is larger than the whole limit is set
    aside as too large and does not stop the take; the first that does not
    fit in full ends the full form (in the fresh and moderate brackets the
    rest go as one line each), and the first line that does not fit stops
    the take. Once it stops, the candidates ranked below are classified only
    when asked for: each is already sent or does not fit,
    and none of that changes what was taken.
    """
    policy = outcome.bracket.memory
    room = outcome.limit - _END
    heading = host_len(MEMORY_HEADING)
    whole = room - heading  # the most any item can have: no rules, nothing else
    full_phase = policy.full_budget_chars != 0
    parts: list[str] = []
    taken = outcome._candidates
    left = full_left = lines_left = 0  # set when the rules are fitted
    text, size = "", 0

    def sent(cand: Candidate) -> bool:
        item = cand.item
        if ledger is not None and ledger.sent(item.key, item.signature()):
            cand.form = "already sent"
            return True
        return False

    def passed_over(cand: Candidate) -> Candidate:
        """A candidate below where the take stopped: already sent, or does not fit."""
        sent(cand)
        return cand

    fitted = False
    stopped = False
    for cand in ranked:
        taken.append(cand)
        if sent(cand):
            continue
        if full_phase:
            text = render_full(cand.item)
            size = _cost(text)
            if size > whole:
                cand.form = "too large"  # set aside and named; the take goes on
                continue
        if not fitted:  # memory has something to send: the rules leave it its floor
            line = _cost(render_line(cand.item))  # and always room for this one as a line
            floor = min(whole, max(int(outcome.limit * MEMORY_FLOOR_SHARE), line))
            rules = _fit_rules(outcome, blocks, room - _BETWEEN - heading - floor)
            left = room - (rules + _BETWEEN if rules else 0) - heading
            full_left = _within(policy.full_budget_chars, left)
            lines_left = _within(policy.line_budget_chars, left)
            fitted = True
        if full_phase:
            if size <= full_left and size <= left:
                cand.form, full_left, left = "full", full_left - size, left - size
                parts.append(text)
                continue
            full_phase = False  # the rest go as one line each
        text = render_line(cand.item)
        size = _cost(text)
        top = policy.at_least_one and not parts  # the top one goes even past the line budget
        if size <= left and (size <= lines_left or top):
            cand.form, lines_left, left = "line", lines_left - size, left - size
            parts.append(text)
        else:
            stopped = True  # the first that does not fit stops the take
            break
    if not fitted:  # nothing waiting for memory: the rules may use the whole limit
        _fit_rules(outcome, blocks, room)
    if stopped:
        outcome._rest = (passed_over(cand) for cand in ranked)
    if parts:
        outcome.memory_text = "\n".join([MEMORY_HEADING, *parts])
