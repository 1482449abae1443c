// What moved since the board was last drawn. The page redraws the whole board on every new
// view, so a picture animates only when its own value changed since the last drawing (a new
// roll, a new bid, a cardinal that moved): an unchanged die does not roll again. The first
// drawing of a table animates nothing. The animations themselves are CSS (style.css), and
// none runs under prefers-reduced-motion.

let scope = "";
let previous = new Map<string, string>();
let current = new Map<string, string>();

/** Starts a drawing of the board of one table (a new table forgets the last one's). */
export function beginDrawing(tableId: string): void {
  if (tableId !== scope) {
    scope = tableId;
    previous = new Map();
  } else {
    previous = new Map([...previous, ...current]);
  }
  current = new Map();
}

/** Whether the thing named key shows another value than at the last drawing (remembers this one). */
export function changed(key: string, value: string): boolean {
  current.set(key, value);
  const before = previous.get(key);
  return before !== undefined && before !== value;
}

/** The value key had at the last drawing, if any (where a moved thing comes from). */
export function before(key: string): string | undefined {
  return previous.get(key);
}
