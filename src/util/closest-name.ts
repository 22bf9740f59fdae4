/**
 * The known name closest to `given` by edit distance, when close enough to be a typo (at most a third
 * of its length, and at least 1 edit): for "did you mean …?" hints. Undefined when nothing is close.
 */
export function closestName(given: string, known: Iterable<string>): string | undefined {
  const limit = Math.max(1, Math.floor(given.length / 3));
  let best: { name: string; distance: number } | undefined;
  for (const name of known) {
    const distance = editDistance(given.toLowerCase(), name.toLowerCase());
    if (distance <= limit && (best === undefined || distance < best.distance)) best = { name, distance };
  }
  return best?.name;
}

/** ` (did you mean "x"?)`, or nothing: appended to an error message. */
export function didYouMean(given: string, known: Iterable<string>): string {
  const name = closestName(given, known);
  return name === undefined ? '' : ` (did you mean "${name}"?)`;
}

/** Levenshtein distance, one row at a time. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length]!;
}
