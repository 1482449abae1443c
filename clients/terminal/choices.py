"""The legal actions as a menu tree, so that a large choice is a few short steps.

Each action has a path of step labels; its last label names the whole action. Actions
whose paths share a first label form a submenu under it. A renderer may give paths; the
generic rule groups labels by their leading words until every menu is short.
"""

from dataclasses import dataclass, field

SHORT = 10  # a menu longer than this is split into groups when the labels allow it


@dataclass
class Choice:
    label: str
    index: int | None = None  # the legal action's index, for a leaf
    children: list["Choice"] = field(default_factory=list)

    @property
    def is_leaf(self) -> bool:
        return self.index is not None


def build(paths: list[tuple[str, ...]]) -> list[Choice]:
    """The menu for actions 0..n-1 given their paths (the last label names the action)."""
    return _group(list(enumerate(paths)), 0)


def _group(items: list[tuple[int, tuple[str, ...]]], depth: int) -> list[Choice]:
    groups: dict[str, list[tuple[int, tuple[str, ...]]]] = {}
    for index, path in items:
        key = path[depth] if depth < len(path) - 1 else f"\0{index}"
        groups.setdefault(key, []).append((index, path))
    menu = []
    for key, members in groups.items():
        if len(members) == 1:
            index, path = members[0]
            menu.append(Choice(path[-1], index))
        else:
            menu.append(Choice(key, children=_group(members, depth + 1)))
    return menu


def word_paths(labels: list[str]) -> list[tuple[str, ...]]:
    """Paths from plain labels: a long list is grouped by leading words ("bid 3 …")."""
    paths: list[tuple[str, ...]] = [() for _ in labels]
    _split(list(range(len(labels))), [label.split() for label in labels], labels, 0, paths, ())
    return paths


def _split(indices, words, labels, depth, paths, prefix) -> None:
    if len(indices) <= SHORT:
        for index in indices:
            paths[index] = (*prefix, labels[index])
        return
    groups: dict[str, list[int]] = {}
    for index in indices:
        groups.setdefault(" ".join(words[index][: depth + 1]), []).append(index)
    if len(groups) == 1 and all(len(words[i]) > depth + 1 for i in indices):
        _split(indices, words, labels, depth + 1, paths, prefix)  # a shared word: look further
        return
    if len(groups) == len(indices):  # nothing to group by: one long menu
        for index in indices:
            paths[index] = (*prefix, labels[index])
        return
    for key, members in groups.items():
        if len(members) == 1:
            paths[members[0]] = (*prefix, labels[members[0]])
        else:
            # The words every member shares, not only the first: "Castor oil: …", not "Castor …".
            shared = depth + 1
            while all(len(words[i]) > shared + 1 for i in members) and len({words[i][shared] for i in members}) == 1:
                shared += 1
            key = " ".join(words[members[0]][:shared])
            _split(members, words, labels, shared, paths, (*prefix, f"{key} …"))


def under(label: str, parent: str | None) -> str:
    """A menu entry as shown under the entry it was opened from: the words that entry already
    says left out ("Swap: …" opens "queue card 3 …", not "Swap: queue card 3 …")."""
    stem = parent.removesuffix(" …") if parent else ""
    return label[len(stem) + 1 :] if stem and label.startswith(f"{stem} ") else label
