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
6. Rules first, whole domain blocks, within the 64 KiB injection budget;
   then memory in ranked order, in the forms the bracket gives, within what
   is left. What did not fit is not recorded, so it comes back next prompt.

Pure apart from reading the declared places; it writes nothing.
"""

from __future__ import annotations

from abcd.errors import AbcdError, TrustError
from abcd.recall.bm25f import Corpus, Doc
from abcd.recall.constants import INJECTION_BUDGET_BYTES
from abcd.recall.index import EVERYWHERE, INDEX_FILE, weighted_length
from abcd.recall.items import (
    Item,
    Problem,
    read_machine_pages,
    read_project_notes,
    read_workspace_pages,
)
from abcd.recall.machine import IndexedNotes, read_machine_notes
from abcd.recall.terms import Prompt, Term, scan, term_of, warm, words
from abcd.rules import load as load_rules
from abcd.rules import match as match_rules
from abcd.rules.render import fence, fit, render_domain

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Collection

    from abcd.recall.bm25f import Scored
    from abcd.recall.index import Record
    from abcd.recall.stemcache import StemCache
    from abcd.repo import Repo
    from abcd.rules.loader import RuleSet
    from abcd.rules.match import Match
    from abcd.session.brackets import Bracket
    from abcd.session.ledger import Ledger
    from abcd.trust.guarded import Home

MEMORY_HEADING = "## MEMORY"


class Candidate:
    """A ranked candidate and the form it takes: full, line, too large, does not fit, already sent."""

    __slots__ = ("form", "hits", "item", "rank", "scored")

    def __init__(self, item: Item, scored: Scored, rank: int, hits: tuple[str, ...]) -> None:
        self.item = item
        self.scored = scored
        self.rank = rank
        self.hits = hits
        self.form = "does not fit"


class DomainChoice:
    """A matched rule domain and what became of it: full, short, already sent, left out."""

    __slots__ = ("form", "match")

    def __init__(self, match: Match, form: str) -> None:
        self.match = match
        self.form = form


class Outcome:
    """Everything one recall decided, for the hook's output and the diagnostic's report."""

    def __init__(self, bracket: Bracket) -> None:
        self.bracket = bracket
        self.rules: RuleSet | None = None
        self.domains: list[DomainChoice] = []
        self.truncated_line = ""
        self.candidates: list[Candidate] = []
        self.withheld: list[tuple[Item, str]] = []
        self.problems: list[Problem] = []
        self.rules_text = ""
        self.memory_text = ""

    @property
    def text(self) -> str:
        return "\n\n".join(part for part in (self.rules_text, self.memory_text) if part)

    @property
    def injected(self) -> list[DomainChoice]:
        return [d for d in self.domains if d.form in ("full", "short")]

    @property
    def recalled(self) -> list[Candidate]:
        return [c for c in self.candidates if c.form in ("full", "line")]


# --- rendering -------------------------------------------------------------------


def render_full(item: Item) -> str:
    return f"### {item.key} {item.label}: {item.title}\n{fence(item.body)}"


def render_line(item: Item) -> str:
    return f"- {item.key} {item.label}: {item.title}"


def _size(text: str) -> int:
    return len(text.encode("utf-8")) + 1  # and the newline that joins it


# --- loading ---------------------------------------------------------------------


def _load_items(
    home: Home | None, repo: Repo | None, outcome: Outcome, *, machine_notes: bool
) -> list[Item]:
    items: list[Item] = []
    if repo is not None:
        try:
            items += read_project_notes(str(repo.top))
        except AbcdError as err:
            outcome.problems.append(Problem("note", f"project notes unreadable: {err}"))
    try:
        if machine_notes:
            items += read_machine_notes(home)
    except AbcdError as err:
        outcome.problems.append(Problem("note", f"machine notes unreadable: {err}"))
    if repo is not None:
        pages, problems = read_workspace_pages(str(repo.top))
        items += pages
        outcome.problems += problems
    pages, problems = read_machine_pages(home)
    items += pages
    outcome.problems += problems
    return items


def _suppress(items: list[Item], outcome: Outcome) -> list[Item]:
    """Narrower scope wins: drop a machine item whose key a repository item also has."""
    narrow = {i.key: i for i in items if i.layer != "machine"}
    kept = []
    for item in items:
        twin = narrow.get(item.key) if item.layer == "machine" else None
        if twin is not None:
            outcome.withheld.append(
                (item, f"suppressed by a narrower scope (the {twin.layer} {twin.kind})")
            )
        else:
            kept.append(item)
    return kept


def _hits(item: Item, prompt: Prompt, memo: dict[str, Term | None]) -> tuple[str, ...]:
    """The item's recall words that hit the prompt (`memo` keeps each word's term for this recall)."""
    found = []
    for word in item.recall:
        if word not in memo:
            memo[word] = term_of(word)
        term = memo[word]
        if term is not None and prompt.hits(term):
            found.append(word)
    return tuple(found)


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
        self, docs: list[Doc], indexed: IndexedNotes | None, groups: list[str], minus: list[Record]
    ) -> None:
        super().__init__(docs)
        self._indexed, self._groups, self._minus = indexed, groups, minus
        if indexed is None:
            return
        small = sum(doc.length for doc in docs)
        figures = [indexed.index.groups.get(g, (0, 0)) for g in groups]
        self.n = len(docs) + sum(n for n, _ in figures) - len(minus)
        total = (
            small + sum(length for _, length in figures) - sum(weighted_length(r) for r in minus)
        )
        self.avg_len = total / self.n if total and self.n else 1.0

    def admit(self, keys: set[str]) -> None:
        self.keys = self.keys | keys

    def holding(self, terms: Collection[str]) -> dict[str, int]:
        found = super().holding(terms)
        if self._indexed is None:
            return found
        for group in self._groups:
            for term, n in self._indexed.index.df(group, terms).items():
                found[term] += n
        wanted = set(terms)
        for record in self._minus:
            for term in wanted.intersection(record[6]).union(
                wanted.intersection(record[7]), wanted.intersection(record[8])
            ):
                found[term] -= 1
        return found


def _open_index(home: Home | None, outcome: Outcome) -> IndexedNotes | None:
    """The machine index, or `None` to fold the view instead (slower, never wrong)."""
    if home is None:
        return None
    try:
        return IndexedNotes(home)
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
) -> Outcome:
    """Decide what this prompt brings back; `ledger` `None` means a fresh session.

    With `use_index`, machine notes come through `memory.idx` when it is
    usable (the hook); without it every machine note is read, so each one
    can be listed with the reason it was withheld (the diagnostic). `stems`,
    when given, supplies the stems of items stemmed at an earlier prompt (the
    hook saves it afterwards; the engine itself writes nothing).
    """
    outcome = Outcome(bracket)
    rules = load_rules(home, repo.top if repo is not None else None)
    outcome.rules = rules
    for problem in rules.problems:
        outcome.problems.append(Problem("rules", str(problem)))
    prompt = Prompt(scan(prompt_text))
    indexed = _open_index(home, outcome) if use_index else None
    try:
        return _recall(prompt, home, repo, rules, bracket, ledger, indexed, outcome, stems)
    finally:
        if indexed is not None:
            indexed.close()


def _recall(
    prompt: Prompt,
    home: Home | None,
    repo: Repo | None,
    rules: RuleSet,
    bracket: Bracket,
    ledger: Ledger | None,
    indexed: IndexedNotes | None,
    outcome: Outcome,
    stems: StemCache | None = None,
) -> Outcome:
    loaded = _load_items(home, repo, outcome, machine_notes=indexed is None)
    if indexed is not None:
        loaded += [i for i in indexed.extra.values()]
    items = _suppress(loaded, outcome)
    if rules.disabled:
        silenced = f"silenced by the kill switch ({', '.join(rules.disabled_by)})"
        outcome.withheld += [(item, silenced) for item in items]
        return outcome

    used = _take_rules(match_rules(rules, prompt), bracket, ledger, outcome)

    # Machine notes through the index: only those whose recall terms start with a prompt stem.
    narrow_ids = {i.key for i in items if i.kind == "note" and i.layer != "machine"}
    from_index: dict[str, Doc] = {}
    known_hits: dict[str, tuple[str, ...]] = {}
    memo: dict[str, Term | None] = {}
    if indexed is not None:
        # Only the groups that can come back here: a note tied to another repository is never read.
        tied_groups = any(g != EVERYWHERE for g in indexed.index.groups) or any(
            i.root is not None for i in indexed.extra.values()
        )
        known_root = _root(repo, ledger, outcome) if tied_groups else None
        wanted_groups = {EVERYWHERE, known_root or EVERYWHERE}
        numbers = sorted(
            {
                no
                for no, term, group in indexed.index.recall_entries(prompt.distinct)
                if group in wanted_groups and prompt.hits(term)
            }
        )
        for no in numbers:
            record = indexed.index.record(no)
            if record[0] in indexed.gone or record[0] in narrow_ids or record[0] in indexed.extra:
                continue
            item = Item(
                kind="note",
                layer="machine",
                name=record[0],
                title=record[1],
                body=record[2],
                recall=record[3],
                root=record[4],
                recency=record[5],
            )
            from_index[item.key] = Doc(
                item.key, record[6], record[7], record[8], item.scope_rank, item.recency
            )
            known_hits[item.key] = tuple(
                word
                for word, term in zip(record[3], record[9], strict=True)
                if term and prompt.hits(term)
            )
            items.append(item)

    reach: list[Item] = []
    hitting: list[tuple[Item, tuple[str, ...]]] = []
    tied: list[tuple[Item, tuple[str, ...]]] = []
    for item in items:
        if not item.recall:
            outcome.withheld.append((item, "no recall words"))
            continue
        hits = known_hits[item.key] if item.key in known_hits else _hits(item, prompt, memo)
        if item.root is not None:
            tied.append((item, hits))
            continue
        reach.append(item)
        if hits:
            hitting.append((item, hits))
        else:
            outcome.withheld.append((item, "no word hit"))
    # idf counts every item in reach, tied notes of this repository included whether or not one
    # hit, so the root is needed whenever tied notes exist; the session start records it, so the
    # hook asks git only when the session did not (docs/decisions.md).
    has_tied = bool(tied) or (
        indexed is not None and any(g != EVERYWHERE for g in indexed.index.groups)
    )
    root = _root(repo, ledger, outcome) if has_tied else None
    for item, hits in tied:
        if root is not None and item.root == root:
            reach.append(item)
            if hits:
                hitting.append((item, hits))
                continue
        if not hits:
            outcome.withheld.append((item, "no word hit"))
        elif repo is None:
            outcome.withheld.append((item, "tied to a repository, and this folder is in none"))
        else:
            outcome.withheld.append((item, "tied to another repository"))

    if not hitting:  # nothing to rank: the reach's figures are not needed
        return outcome
    by_key = {item.key: item for item in reach}
    if stems is not None:
        docs = {item.key: stems.doc(item) for item in reach if item.key not in from_index}
    else:
        # One pass over the reach's text (in C: translate, split, set difference) stems new words at once.
        texts = (t for item in reach if item.key not in from_index for t in (item.title, item.body))
        warm(words("\n".join(texts)))
        docs = {
            item.key: Doc.of(
                item.key,
                recall=item.recall,
                title=item.title,
                body=item.body,
                scope_rank=item.scope_rank,
                recency=item.recency,
            )
            for item in reach
            if item.key not in from_index
        }
    groups = [EVERYWHERE, *([root] if root is not None else [])]
    minus: list[Record] = []
    if indexed is not None:
        for note_id in sorted((indexed.gone | narrow_ids) - set(indexed.extra)):
            found = indexed.index.number_of(note_id)
            if found is not None:
                record = indexed.index.record(found)
                if (record[4] or EVERYWHERE) in groups:
                    minus.append(record)
    corpus = _Reach(list(docs.values()), indexed, groups, minus)
    corpus.admit({key for key in from_index if key in by_key})
    docs.update(from_index)
    hits_of = {item.key: hits for item, hits in hitting}
    ranked = corpus.ranked([docs[item.key] for item, _ in hitting], prompt.distinct)
    outcome.candidates = [
        Candidate(by_key[s.key], s, rank, hits_of[s.key]) for rank, s in enumerate(ranked, start=1)
    ]
    _take_memory(outcome, ledger, INJECTION_BUDGET_BYTES - used)
    return outcome


def _take_rules(
    matches: list[Match], bracket: Bracket, ledger: Ledger | None, outcome: Outcome
) -> int:
    """Rules first: whole domain blocks within the budget. Returns the bytes they use."""
    short = bracket.rules_form == "short"
    blocks: list[tuple[str, str]] = []
    for match in matches:
        domain = match.domain
        if ledger is not None and ledger.domain_sent(domain.name, domain.signature()):
            outcome.domains.append(DomainChoice(match, "already sent"))
            continue
        outcome.domains.append(DomainChoice(match, "short" if short else "full"))
        blocks.append((domain.name, render_domain(domain, short=short)))
    if not blocks:
        return 0
    fitted = fit(blocks, INJECTION_BUDGET_BYTES)
    left_out = set(fitted.left_out)
    for choice in outcome.domains:
        if choice.match.domain.name in left_out:
            choice.form = "left out"
    if left_out:
        outcome.truncated_line = fitted.text.rstrip("\n").rsplit("\n", 1)[-1]
    outcome.rules_text = fitted.text.rstrip("\n")
    return fitted.used


def _take_memory(outcome: Outcome, ledger: Ledger | None, budget: int) -> None:
    """Memory in ranked order, in the bracket's forms, within `budget` bytes."""
    policy = outcome.bracket.memory
    heading = _size(MEMORY_HEADING)
    left = budget - heading
    full_left = left if policy.full_budget_bytes is None else min(policy.full_budget_bytes, left)
    lines_left = left if policy.line_budget_bytes is None else min(policy.line_budget_bytes, left)
    full_phase = policy.full_budget_bytes != 0
    parts: list[str] = []
    stopped = False
    for cand in outcome.candidates:
        item = cand.item
        if ledger is not None and ledger.sent(item.key, item.signature()):
            cand.form = "already sent"
            continue
        # A note's full block is bounded (2 KiB body): render it only when it could be too large or
        # the take goes on, not for every candidate below the point where the take stopped.
        could_be_too_large = (
            8 * (len(item.title) + len(item.body) + len(item.key)) + 256 > budget - heading
        )
        text = render_full(item) if full_phase and (could_be_too_large or not stopped) else ""
        size = _size(text)
        if full_phase and text and size > budget - heading:
            cand.form = (
                "too large"  # larger than the whole budget: set aside and named, wherever it ranks
            )
            continue
        if stopped:
            continue
        if full_phase:
            if size <= full_left and size <= left:
                cand.form, full_left, left = "full", full_left - size, left - size
                parts.append(text)
                continue
            if policy.line_budget_bytes == 0:
                stopped = True  # the first that does not fit stops the take
                continue
            full_phase = False  # moderate: the rest go as one line each
        text = render_line(item)
        size = _size(text)
        first = not parts
        if (size <= lines_left and size <= left) or (
            first and policy.at_least_one and size <= budget - heading
        ):
            cand.form, lines_left, left = "line", lines_left - size, left - size
            parts.append(text)
        else:
            stopped = True
    if parts:
        outcome.memory_text = "\n".join([MEMORY_HEADING, *parts])
