// The legal actions as short menus: each action has a path of step labels (a game may
// give its own, e.g. a Borgia bid: count, then face); actions that share a first step
// form a submenu. Without a game's paths, long lists are grouped by their leading words.

export interface Choice {
  label: string;
  index?: number; // the legal action's index, for a leaf
  children: Choice[];
}

const SHORT = 10; // a menu longer than this is split into groups when the labels allow it

export function buildMenu(paths: string[][]): Choice[] {
  return group(
    paths.map((path, index) => [index, path] as const),
    0,
  );
}

function group(items: (readonly [number, string[]])[], depth: number): Choice[] {
  const groups = new Map<string, (readonly [number, string[]])[]>();
  for (const [index, path] of items) {
    const key = depth < path.length - 1 ? path[depth] : `\0${index}`;
    groups.set(key, [...(groups.get(key) ?? []), [index, path]]);
  }
  const menu: Choice[] = [];
  for (const [key, members] of groups) {
    if (members.length === 1) {
      const [index, path] = members[0];
      menu.push({ label: path[path.length - 1], index, children: [] });
    } else {
      menu.push({ label: key, children: group(members, depth + 1) });
    }
  }
  return menu;
}

/** Paths from plain labels: a long list is grouped by leading words ("seat …"). */
export function wordPaths(labels: string[]): string[][] {
  const paths: string[][] = labels.map(() => []);
  split(
    labels.map((_, i) => i),
    labels.map((label) => label.split(/\s+/)),
    labels,
    0,
    paths,
    [],
  );
  return paths;
}

function split(
  indices: number[],
  tokens: string[][],
  labels: string[],
  depth: number,
  paths: string[][],
  prefix: string[],
): void {
  if (indices.length <= SHORT) {
    for (const i of indices) paths[i] = [...prefix, labels[i]];
    return;
  }
  const groups = new Map<string, number[]>();
  for (const i of indices) {
    const key = tokens[i].slice(0, depth + 1).join(" ");
    groups.set(key, [...(groups.get(key) ?? []), i]);
  }
  if (groups.size === 1 && indices.every((i) => tokens[i].length > depth + 1)) {
    split(indices, tokens, labels, depth + 1, paths, prefix); // a shared word: look further
    return;
  }
  if (groups.size === indices.length) {
    for (const i of indices) paths[i] = [...prefix, labels[i]];
    return;
  }
  for (const [key, members] of groups) {
    if (members.length === 1) {
      paths[members[0]] = [...prefix, labels[members[0]]];
      continue;
    }
    // The words every member shares, not only the first: "Castor oil: …", not "Castor …".
    let shared = depth + 1;
    while (members.every((i) => tokens[i].length > shared + 1) && new Set(members.map((i) => tokens[i][shared])).size === 1) shared += 1;
    const stem = shared > depth + 1 ? tokens[members[0]].slice(0, shared).join(" ") : key;
    split(members, tokens, labels, shared, paths, [...prefix, `${stem} …`]);
  }
}

/** A menu entry as shown under the entry it was opened from: the words that entry already
 * says left out ("Swap: …" opens "queue card 3 …", not "Swap: queue card 3 …"). */
export function under(label: string, parent: string | undefined): string {
  const stem = parent?.replace(/ …$/, "");
  return stem && label.startsWith(`${stem} `) ? label.slice(stem.length + 1) : label;
}

/** The menus opened so far, each said once: "Swap: queue card 3 …". */
export function trailText(trail: string[]): string {
  const parts = trail.map((step, i) => under(step, trail[i - 1]));
  return parts.map((part, i) => (i + 1 < parts.length && under(trail[i + 1], trail[i]) !== trail[i + 1] ? part.replace(/ …$/, "") : part)).join(" ");
}
